import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../api/auth/api-keys.ts';
import { authFeature, maritimeFeature } from '../../app/features.ts';
import { startService, type RunningService } from '../../app/service.ts';
import { KafkaAdmin, KafkaProducer, partitionOfKey } from '../../platform/kafka/index.ts';
import { createPool } from '../../platform/postgres.ts';
import type { VesselPosition } from '../../schemas/ais.ts';
import type { SecurityEvent } from '../../schemas/event.ts';
import { valueOf } from '../support/codec.ts';
import { call } from '../support/service.ts';
import { consumeUntil, testConfig, testKafka, testLog, unique } from '../support/stack.ts';
import { position } from '../support/tracks.ts';

// Encounters (beyond the spec, GFW's definition: 500 m, 2 kn, 2 h) on the real stack: two processor
// instances in one consumer group, the two vessels of each pair keyed to different partitions, reports
// sent in rounds of event time as a live feed delivers them. Topics of this file's own.
const T0 = Date.parse('2026-11-22T06:00:00Z');
const at = (minute: number) => new Date(T0 + minute * 60_000);
const CENTRE = [15.2, 55.1] as const;
const ZONE = { name: `STS anchorage ${unique('enc')}`, type: 'anchorage', alert_level: 'low', geometry: { type: 'Circle', center: [...CENTRE], radius_meters: 5000 } };
/** ~190 m apart at this latitude. */
const CLOSE = 0.003;
const PAIRS = {
  meets: [219_004_101, 219_004_102],
  separates: [219_004_103, 219_004_105],
  fast: [219_004_106, 219_004_107],
  afterRuleChange: [219_004_108, 219_004_109],
} as const;
const VESSELS: number[] = Object.values(PAIRS).flat();
const partitionOf = (mmsi: number) => partitionOfKey(String(mmsi), 6);

describe('encounters across processor instances', () => {
  const prefix = `${unique('encounters')}.`;
  const producer = new KafkaProducer(testKafka());
  let services: RunningService[] = [];
  let writer: string;
  let zoneId: string;

  const start = async () => [
    await startService(testConfig({ PSS_TOPIC_PREFIX: prefix }), ['api', 'processors'], testLog, [authFeature, maritimeFeature]),
    await startService(testConfig({ PSS_TOPIC_PREFIX: prefix }), ['processors'], testLog, [authFeature, maritimeFeature]),
  ];
  const stopAll = async () => {
    for (const s of services) await s.stop();
    services = [];
  };

  beforeAll(async () => {
    services = await start();
    writer = (await createApiKey(services[0]!.context.pool, services[0]!.context.config.environment, { name: 'encounter-admin', scopes: ['maritime:write', 'maritime:read'] }, 'test')).key;
  });
  afterAll(async () => {
    await producer.close();
    await stopAll();
  });

  const url = (path: string) => `${services[0]!.url}/v1${path}`;
  const send = (positions: VesselPosition[]) => producer.send(positions.map((p) => ({ topic: services[0]!.context.topics.aisPositions, key: String(p.mmsi), value: JSON.stringify(p) })));
  const mine = (e: SecurityEvent) => (e.type === 'encounter' || e.type === 'encounter_end') && e.metadata.zone_name === ZONE.name;
  const readEvents = async (enough: (events: SecurityEvent[]) => boolean, quietMs = 0) => {
    const decode = (records: { topic: string; value: string | Buffer }[]) => records.map((r) => valueOf(r) as SecurityEvent).filter(mine);
    return decode(await consumeUntil(services[0]!.context.topics.securityEvents, (seen) => enough(decode(seen)), { timeoutMs: 60_000, quietMs }));
  };
  const pairOf = (e: SecurityEvent) => [e.metadata.mmsi, e.metadata.other_mmsi];
  /** The events topic has several partitions: order is only kept within one. */
  const inOrder = (events: SecurityEvent[]) => [...events].sort((a, b) => a.timestamp.localeCompare(b.timestamp) || a.type.localeCompare(b.type));
  /** One round of reports at `minute`: each pair's two vessels `gap` degrees of longitude apart. */
  const round = (minute: number, pairs: { mmsis: readonly number[]; lon: number; gap: number; sog: number }[]) =>
    send(pairs.flatMap(({ mmsis, lon, gap, sog }) => mmsis.map((mmsi, i) => position(mmsi, at(minute), lon + i * gap, CENTRE[1], sog))));
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('finds exactly one encounter for the pair slow and close for 2 h, none for the pair that separates or moves faster', async () => {
    for (const [a, b] of Object.values(PAIRS)) expect(partitionOf(a), `${a} and ${b} on different partitions`).not.toBe(partitionOf(b));
    const zone = await call(url('/maritime/zones'), writer, { method: 'POST', json: ZONE });
    expect(zone.status, JSON.stringify(zone.json)).toBe(201);
    zoneId = zone.json.data.id;
    const rules = await call(url(`/maritime/zones/${zoneId}/rules`), writer, { method: 'PUT', json: { encounter_rules: {} } });
    expect(rules.status, JSON.stringify(rules.json)).toBe(200);
    await pause(2_000);

    // Every 5 minutes of event time, as a feed delivers it; the pairs ~1.3 km from one another.
    for (let minute = 0; minute <= 150; minute += 5) {
      await round(minute, [
        { mmsis: PAIRS.meets, lon: 15.18, gap: CLOSE, sog: minute < 150 ? 0.4 : 8 },
        { mmsis: PAIRS.separates, lon: 15.2, gap: minute < 100 ? CLOSE : 0.02, sog: 0.4 },
        { mmsis: PAIRS.fast, lon: 15.22, gap: CLOSE, sog: 2.5 },
      ]);
      await pause(250);
    }
    const events = await readEvents((seen) => seen.some((e) => e.type === 'encounter_end'), 4_000);
    expect(inOrder(events).map((e) => [e.type, pairOf(e)])).toEqual([
      ['encounter', [...PAIRS.meets]],
      ['encounter_end', [...PAIRS.meets]],
    ]);
    const [encounter, end] = inOrder(events) as [SecurityEvent, SecurityEvent];
    expect(Date.parse(encounter.timestamp) - T0).toBe(120 * 60_000);
    expect(encounter).toMatchObject({ severity: 'medium', requires_action: true, metadata: { max_distance_meters: 500, max_speed_knots: 2, min_minutes: 120, encounter_since: at(0).toISOString() } });
    expect(String(encounter.metadata.source)).toContain('Global Fishing Watch');
    expect(end.timestamp).toBe(at(150).toISOString());
    expect(end.metadata).toMatchObject({ duration_minutes: 145 });
    expect(end.metadata.closest_distance_meters).toBeGreaterThan(180);
    expect(end.metadata.closest_distance_meters).toBeLessThan(200);
  });

  it('applies a rule changed through the API to the next encounters', async () => {
    const rules = await call(url(`/maritime/zones/${zoneId}/rules`), writer, { method: 'PUT', json: { encounter_rules: { min_minutes: 30, alert_level: 'high' } } });
    expect(rules.status, JSON.stringify(rules.json)).toBe(200);
    await pause(2_000);
    for (let minute = 160; minute <= 200; minute += 5) {
      await round(minute, [{ mmsis: PAIRS.afterRuleChange, lon: 15.19, gap: CLOSE, sog: 0.3 }]);
      await pause(250);
    }
    const events = await readEvents((seen) => seen.some((e) => e.type === 'encounter' && e.metadata.mmsi === PAIRS.afterRuleChange[0]), 3_000);
    const found = events.filter((e) => e.metadata.mmsi === PAIRS.afterRuleChange[0]);
    expect(found.map((e) => [e.type, e.timestamp, e.severity, e.metadata.min_minutes])).toEqual([['encounter', at(190).toISOString(), 'high', 30]]);
  });

  it('emits nothing again when every position is replayed from the start with the vessels\' states rolled back', async () => {
    await stopAll();
    // What a crash before the states' checkpoint leaves: every report is evaluated again (offsets from the
    // start), and the vessels' rules state no longer says which reports were seen.
    const admin = new KafkaAdmin(testKafka());
    await admin.deleteGroup(`${prefix}maritime-zones`);
    await admin.close();
    const pool = createPool(testConfig().databaseUrl, 1);
    await pool.query('DELETE FROM maritime_vessel_state WHERE mmsi = ANY($1::int[])', [VESSELS]);
    services = await start();
    // Every vessel is back in the zone once the replay has reached its reports (an entry is checkpointed).
    for (let i = 0; i < 120; i++) {
      const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM maritime_vessel_state WHERE mmsi = ANY($1::int[])', [VESSELS]);
      if (rows[0]!.n === VESSELS.length) break;
      await pause(500);
    }
    await pool.end();
    const all = await readEvents((seen) => seen.length >= 3, 6_000);
    expect(inOrder(all).map((e) => [e.type, pairOf(e)])).toEqual([
      ['encounter', [...PAIRS.meets]],
      ['encounter_end', [...PAIRS.meets]],
      ['encounter', [...PAIRS.afterRuleChange]],
    ]);
  });
});
