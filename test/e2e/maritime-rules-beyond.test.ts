import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../api/auth/api-keys.ts';
import { authFeature, maritimeFeature } from '../../app/features.ts';
import { startService, type RunningService } from '../../app/service.ts';
import { KafkaProducer } from '../../platform/kafka/index.ts';
import type { VesselPosition } from '../../schemas/ais.ts';
import type { SecurityEvent } from '../../schemas/event.ts';
import { valueOf } from '../support/codec.ts';
import { call } from '../support/service.ts';
import { consumeUntil, testConfig, testKafka, testLog, unique } from '../support/stack.ts';
import { position } from '../support/tracks.ts';

// Issue 12 "Done means": one end-to-end test per rule, on the real stack. maritime-rules.test.ts covers
// vessel type, speed, position jump and AIS gap, occupancy-window.test.ts the time rules and
// maritime-encounters.test.ts encounters; this file the rest: the heading/COG mismatch, loitering, an
// inferred crossing of a small zone, an identity conflict (one MMSI, two transmitters) and the risk score
// it raises. Rules are written through the API, positions produced to the broker (the zone processor in
// its default two worker threads), events read back from security.events of this file's own topics.
const T0 = Date.parse('2026-11-21T07:00:00Z');
const at = (minute: number) => new Date(T0 + minute * 60_000);
const DRIFTER = 219_001_301;
const LOITERER = 219_001_302;
const CROSSER = 219_001_303;
const TWIN = 219_001_304;
const tag = unique('beyond');
const ROADS = { name: `Outer roads ${tag}`, type: 'monitoring', alert_level: 'low', geometry: { type: 'Circle', center: [14.5, 54.6], radius_meters: 3000 } };
const BUOY = { name: `Channel buoy ${tag}`, type: 'monitoring', alert_level: 'low', geometry: { type: 'Circle', center: [14.3, 54.6], radius_meters: 100 } };
const TYPES = new Set(['heading_mismatch', 'loitering', 'zone_crossing', 'position_jump', 'identity_conflict', 'risk_score_change']);

describe('maritime rules beyond speed and type, end to end', () => {
  const prefix = `${unique('beyond')}.`;
  const producer = new KafkaProducer(testKafka());
  let service: RunningService;

  beforeAll(async () => {
    service = await startService(testConfig({ PSS_TOPIC_PREFIX: prefix }), ['api', 'processors'], testLog, [authFeature, maritimeFeature]);
    const { pool, config } = service.context;
    const writer = (await createApiKey(pool, config.environment, { name: 'beyond-admin', scopes: ['maritime:write', 'maritime:read'] }, 'test')).key;
    for (const zone of [ROADS, BUOY]) {
      const res = await call(`${service.url}/v1/maritime/zones`, writer, { method: 'POST', json: zone });
      expect(res.status, JSON.stringify(res.json)).toBe(201);
    }
    const rules = await call(`${service.url}/v1/maritime/rules`, writer, {
      method: 'PUT',
      json: {
        ais_rules: [{ zone: ROADS.name, alert_on: [{ heading_speed_mismatch: true }, { position_jump_nm: 1 }], alert_level: 'high' }],
        loitering_rules: [{ zone: ROADS.name, max_speed_knots: 2, min_minutes: 10, alert_level: 'medium' }],
        crossing_rules: [{ zone: BUOY.name, alert_level: 'medium' }],
      },
    });
    expect(rules.status, JSON.stringify(rules.json)).toBe(200);
    // Each worker's catalog reloads on the NOTIFY of that commit.
    await new Promise((r) => setTimeout(r, 2_000));
  });
  afterAll(async () => {
    await producer.close();
    await service?.stop();
  });

  it('raises each finding once, with its parameters, and the risk it adds', async () => {
    const report = (mmsi: number, minute: number, lon: number, sog: number, extra: Partial<VesselPosition> = {}): VesselPosition => ({ ...position(mmsi, at(minute), lon, 54.6, sog), ...extra });
    await producer.send(
      [
        // Making way at 3 kn with its head 90 degrees off its course, for three minutes.
        ...[0, 1, 2, 3].map((m) => report(DRIFTER, m, 14.49 + m * 0.0008, 3, { cog: 90, heading: 180 })),
        // At 0.5 kn inside the roads for 12 minutes (the rule says 10).
        ...Array.from({ length: 13 }, (_, m) => report(LOITERER, m, 14.51, 0.5)),
        // Reports 1.3 km apart either side of a 100 m buoy zone, none inside.
        report(CROSSER, 0, 14.29, 8), report(CROSSER, 5, 14.31, 8),
        // One MMSI from both ends of the roads a minute apart, twice: a jump, then alternation.
        ...[0, 1, 2, 3].map((m) => report(TWIN, m, m % 2 === 0 ? 14.48 : 14.52, 8)),
      ].map((p) => ({ topic: service.context.topics.aisPositions, key: String(p.mmsi), value: JSON.stringify(p) })),
    );

    const decode = (records: { topic: string; value: string | Buffer }[]) => records.map((r) => valueOf(r) as SecurityEvent).filter((e) => TYPES.has(e.type));
    const found = (seen: SecurityEvent[], type: string, mmsi: number) => seen.some((e) => e.type === type && e.metadata.mmsi === mmsi);
    const events = decode(
      await consumeUntil(
        service.context.topics.securityEvents,
        (seen) => {
          const e = decode(seen);
          return found(e, 'heading_mismatch', DRIFTER) && found(e, 'loitering', LOITERER) && found(e, 'zone_crossing', CROSSER) && found(e, 'identity_conflict', TWIN);
        },
        // Quiet a while longer, so a second event of any kind would show.
        { timeoutMs: 45_000, quietMs: 3_000 },
      ),
    );
    const summary = events
      .map((e) => [e.metadata.mmsi, e.type, e.timestamp, e.severity] as const)
      .sort((a, b) => Number(a[0]) - Number(b[0]) || a[2].localeCompare(b[2]) || a[1].localeCompare(b[1]));
    expect(summary).toEqual([
      [DRIFTER, 'heading_mismatch', at(1).toISOString(), 'medium'],
      [LOITERER, 'loitering', at(10).toISOString(), 'medium'],
      [CROSSER, 'zone_crossing', at(5).toISOString(), 'medium'],
      [TWIN, 'position_jump', at(1).toISOString(), 'high'],
      [TWIN, 'risk_score_change', at(1).toISOString(), 'low'],
      [TWIN, 'identity_conflict', at(3).toISOString(), 'high'],
      [TWIN, 'risk_score_change', at(3).toISOString(), 'medium'],
    ]);
    const of = (type: string) => events.find((e) => e.type === type)!.metadata;
    expect(of('heading_mismatch')).toMatchObject({ heading: 180, course: 90, difference_degrees: 90 });
    expect(of('loitering')).toMatchObject({ max_speed_knots: 2, min_minutes: 10, duration_minutes: 10, loitering_since: at(0).toISOString() });
    expect(of('zone_crossing')).toMatchObject({ inferred: true, zone_name: BUOY.name, previous_reported_at: at(0).toISOString() });
    expect(of('identity_conflict')).toMatchObject({ likely_cause: 'second_transmitter', alternations: 2 });
  });
});
