// Issue 9, item 1: with PSS_SCHEMA_REGISTRY_URL set, every topic is written in the Confluent wire format,
// and every consumer must read it. NMEA lines in through the HTTP ingest, a zone event out, on the topic
// (wire format, read back with the service's codec) and in the database. Before the codec, the zone
// processor and the vessel directory parsed values as plain JSON and skipped every position.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../api/auth/api-keys.ts';
import { authFeature, ingestFeature, maritimeFeature } from '../../app/features.ts';
import { startService, type RunningService } from '../../app/service.ts';
import { metricTotal } from '../../platform/metrics.ts';
import { topicSpecs } from '../../platform/topics.ts';
import type { SecurityEvent } from '../../schemas/event.ts';
import { testRegistry, type TestRegistry } from '../support/schema-registry.ts';
import { call } from '../support/service.ts';
import { consumeUntil, testConfig, testLog, unique, withAdmin } from '../support/stack.ts';
import { classA, fragments, message, staticVoyage, tagBlock } from '../unit/ingest/ais/nmea-builder.ts';

const MMSI = 219077001;
const ZONE = { name: 'Registry test berth', type: 'restricted', alert_level: 'high', geometry: { type: 'Circle', center: [10.62, 57.74], radius_meters: 600 } };
// Event time from NMEA 4.0 tag blocks, a few minutes in the past (ingest refuses reports from the future).
const T0 = Math.floor(Date.now() / 60_000) * 60 - 600;
const at = (minute: number) => new Date((T0 + minute * 60) * 1000).toISOString();
const timed = (minute: number, sentence: string) => `${tagBlock(`c:${T0 + minute * 60}`)}${sentence}`;
const report = (minute: number, lon: number, lat: number) =>
  timed(minute, message(classA({ mmsi: MMSI, lon: Math.round(lon * 600_000), lat: Math.round(lat * 600_000), sog: 60, cog: 900, heading: 90 })));

describe('schema-registry mode end to end', () => {
  let registry: TestRegistry;
  let service: RunningService;
  let key: string;
  let zoneId: string;
  const prefix = `${unique('registry')}.`;
  const url = (path: string) => `${service.url}/v1${path}`;
  const ingest = (lines: string[]) => call(url('/ingest/ais'), key, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: lines.join('\r\n') + '\r\n' });

  beforeAll(async () => {
    registry = testRegistry();
    const config = testConfig({ PSS_TOPIC_PREFIX: prefix, PSS_SCHEMA_REGISTRY_URL: registry.url });
    service = await startService(config, ['ingest', 'processors', 'api'], testLog, [authFeature, ingestFeature, maritimeFeature]);
    key = (await createApiKey(service.context.pool, config.environment, { name: 'registry-e2e', scopes: ['maritime:write', 'ingest:write'] }, 'test')).key;
  }, 600_000);
  afterAll(async () => {
    if (zoneId !== undefined) await call(url(`/maritime/zones/${zoneId}`), key, { method: 'DELETE' });
    await service?.stop();
    await withAdmin((admin) => admin.deleteTopics(topicSpecs(prefix).map((t) => t.name)));
    registry?.release();
  });

  it('turns NMEA positions inside a zone into a zone_entry event, stored and published in the wire format', async () => {
    const zone = await call(url('/maritime/zones'), key, { method: 'POST', json: ZONE });
    expect(zone.status, zone.text).toBe(201);
    zoneId = zone.json.data.id;

    // Static data first, through ais.static and the vessel directory, so the event names the vessel.
    const named = await ingest(fragments(staticVoyage({ mmsi: MMSI, name: 'REGISTRY TESTER', shipType: 70 }), 2).map((s) => timed(0, s)));
    expect(named.status, named.text).toBe(202);
    await consumeUntil(service.context.topics.aisStatic, (seen) => seen.length >= 1);
    await new Promise((r) => setTimeout(r, 1_500));
    const moved = await ingest([report(0, 10.59, 57.74), report(1, 10.618, 57.74), report(2, 10.62, 57.74)]);
    expect(moved.status, moved.text).toBe(202);

    const stored = await storedEvents(45_000);
    expect(stored.map((e) => [e.type, e.timestamp])).toContainEqual(['zone_entry', at(1)]);

    const records = await consumeUntil(service.context.topics.securityEvents, (seen) => seen.length >= stored.length);
    expect(records.every((r) => r.value[0] === 0)).toBe(true);
    const { values, failures } = await service.context.codec.decode('securityEvents', records);
    expect(failures).toEqual([]);
    const entry = values.map((v) => v.value).find((e) => e.type === 'zone_entry');
    expect(entry).toMatchObject({ id: stored.find((e) => e.type === 'zone_entry')!.id, timestamp: at(1), location: { zone: ZONE.name } });
    expect(entry!.metadata).toMatchObject({ mmsi: MMSI, vessel_name: 'REGISTRY TESTER', vessel_type: 'cargo', zone_id: zoneId });
    expect(await metricTotal('pss_maritime_unreadable_total')).toBe(0);
    expect(await metricTotal('pss_topic_values_unreadable_total')).toBe(0);
  });

  async function storedEvents(timeoutMs: number): Promise<SecurityEvent[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { rows } = await service.context.pool.query<{ body: SecurityEvent }>(
        `SELECT body FROM security_events WHERE body->'metadata'->>'mmsi' = $1 ORDER BY occurred_at`, [String(MMSI)]);
      if (rows.some((r) => r.body.type === 'zone_entry') || Date.now() > deadline) return rows.map((r) => r.body);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
});
