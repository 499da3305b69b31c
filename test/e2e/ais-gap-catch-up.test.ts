// Issue 21, item 1: an AIS gap in traffic that arrives all at once (a replay, or a catch-up after an
// outage), on the real stack: one POST /v1/ingest/ais with event times from 20 minutes ago, the zone
// processor in its default two worker threads, the silent vessel sharing its partition of ais.positions
// with a vessel that keeps reporting. Nothing arrives afterwards, so no later batch can find the gap.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authFeature, ingestFeature, maritimeFeature, systemFeature } from '../../app/features.ts';
import { startService, type RunningService } from '../../app/service.ts';
import { createApiKey } from '../../api/auth/api-keys.ts';
import { partitionOfKey } from '../../platform/kafka/index.ts';
import { topicSpecs } from '../../platform/topics.ts';
import type { SecurityEvent } from '../../schemas/event.ts';
import { valueOf } from '../support/codec.ts';
import { pollFor } from '../support/poll.ts';
import { scratchDatabase, type ScratchDatabase } from '../support/scratch-database.ts';
import { call } from '../support/service.ts';
import { consumeUntil, testConfig, testLog, unique, withAdmin } from '../support/stack.ts';

const PARTITIONS = 6;
const partitionOf = (mmsi: number) => partitionOfKey(String(mmsi), PARTITIONS);
/** Far from every other test's zones. */
const ZONE_CENTRE: [number, number] = [-24.5, 44.2];
const ELSEWHERE: [number, number] = [-27.0, 41.0];
const LOSS_SECONDS = 120;

/** A run of its own: MMSIs no other run has stored states for. */
function vessels(): { silent: number; chatty: number; others: number[] } {
  const base = 219_100_000 + Math.floor(Math.random() * 800_000);
  const silent = base;
  let chatty = base + 1;
  while (partitionOf(chatty) !== partitionOf(silent)) chatty++;
  const others: number[] = [];
  for (let m = chatty + 1; others.length < 11; m++) others.push(m);
  return { silent, chatty, others };
}

interface Report {
  msg_type: number;
  mmsi: number;
  lat: number;
  lon: number;
  sog: number;
  cog: number;
  reported_at: string;
}

const report = (mmsi: number, at: number, [lon, lat]: [number, number]): Report => ({ msg_type: 1, mmsi, lat, lon, sog: 0.2, cog: 90, reported_at: new Date(at).toISOString() });

describe('an AIS gap in a catch-up batch', () => {
  const prefix = `${unique('aisgap')}.`;
  let service: RunningService;
  let sensor: string;
  let zoneId: string;
  const zoneName = `Catch-up anchorage ${unique('gap')}`;

  beforeAll(async () => {
    service = await startService(testConfig({ PSS_TOPIC_PREFIX: prefix, PSS_MARITIME_ZONE_WORKERS: '2' }), ['api', 'processors'], testLog, [authFeature, ingestFeature, maritimeFeature]);
    const { pool, config } = service.context;
    const writer = (await createApiKey(pool, config.environment, { name: 'gap-admin', scopes: ['maritime:write'] }, 'test')).key;
    sensor = (await createApiKey(pool, config.environment, { name: 'gap-sensor', scopes: ['ingest:write'] }, 'test')).key;
    const zone = await call(`${service.url}/v1/maritime/zones`, writer, { method: 'POST', json: { name: zoneName, type: 'anchorage', alert_level: 'low', geometry: { type: 'Circle', center: ZONE_CENTRE, radius_meters: 2000 } } });
    expect(zone.status, JSON.stringify(zone.json)).toBe(201);
    zoneId = zone.json.data.id;
    const rules = await call(`${service.url}/v1/maritime/zones/${zoneId}/rules`, writer, { method: 'PUT', json: { ais_rules: { alert_on: [{ ais_loss_seconds: LOSS_SECONDS }], alert_level: 'high' } } });
    expect(rules.status, JSON.stringify(rules.json)).toBe(200);
    // The processors reload zones and rules on the NOTIFY of that commit.
    await new Promise((r) => setTimeout(r, 2_000));
  });
  afterAll(async () => {
    if (zoneId !== undefined) await service?.context.pool.query('DELETE FROM zones WHERE id = $1', [zoneId]);
    await service?.stop();
    await withAdmin((admin) => admin.deleteTopics(topicSpecs(prefix).map((t) => t.name)));
  });

  it('raises exactly one ais_gap for the vessel that went silent, though nothing arrives after the batch', async () => {
    const { silent, chatty, others } = vessels();
    const t0 = Math.floor((Date.now() - 20 * 60_000) / 1000) * 1000;
    const reports: Report[] = [];
    for (let s = 0; s <= 120; s += 30) reports.push(report(silent, t0 + s * 1000, ZONE_CENTRE));
    for (const mmsi of [chatty, ...others]) {
      for (let minute = 0; minute <= 14; minute++) reports.push(report(mmsi, t0 + minute * 60_000, [ELSEWHERE[0] + (mmsi % 100) * 0.01, ELSEWHERE[1]]));
    }
    // As a replay delivers them: in event-time order.
    reports.sort((a, b) => Date.parse(a.reported_at) - Date.parse(b.reported_at));
    const res = await call(`${service.url}/v1/ingest/ais`, sensor, { method: 'POST', json: { reports } });
    expect(res.status, JSON.stringify(res.json)).toBe(202);
    expect(res.json.data.accepted_count).toBe(reports.length);

    const ours = (records: { topic: string; value: string | Buffer }[]) => records.map((r) => valueOf(r) as SecurityEvent).filter((e) => e.metadata.mmsi === silent || e.metadata.mmsi === chatty || others.includes(e.metadata.mmsi as number));
    const gaps = (events: SecurityEvent[]) => events.filter((e) => e.type === 'ais_gap');
    // Quiet for 12 s after the first gap, past a housekeeping period, so a second one would be seen.
    const events = ours(await consumeUntil(service.context.topics.securityEvents, (seen) => gaps(ours(seen)).length > 0, { timeoutMs: 60_000, quietMs: 12_000 }));
    expect(events.filter((e) => e.type === 'zone_entry').map((e) => e.metadata.mmsi)).toEqual([silent]);
    expect(gaps(events)).toHaveLength(1);
    expect(gaps(events)[0]).toMatchObject({
      severity: 'high',
      source_device: 'ais-silence',
      timestamp: new Date(t0 + (120 + LOSS_SECONDS) * 1000).toISOString(),
      location: { zone: zoneName },
      metadata: { mmsi: silent, ais_loss_seconds: LOSS_SECONDS, last_seen_at: new Date(t0 + 120_000).toISOString(), silent_from: new Date(t0 + 120_000).toISOString() },
    });
    expect(events.some((e) => e.type === 'ais_gap_end')).toBe(false);
  }, 90_000);
});

// Issue 33, item 4: the same batch of recent reports on a service that watches its feeds (health reports
// on, a 2 s feed silence limit), so the feed falls silent right after the batch, as any batch sender does.
// The outage the ingest records must not swallow the gaps inside the batch, whether the silent vessel
// shares its partition with another vessel of its feed or is alone on it; the feed had fallen silent once
// before the batch too (its earlier report). A scratch database, since the health reports are database-wide.
describe('an AIS gap in a batch after which the feed falls silent', () => {
  const prefix = `${unique('aisgapfeed')}.`;
  const partitions = topicSpecs(prefix).find((t) => t.name === `${prefix}ais.positions`)!.partitions;
  const partitionIn = (mmsi: number) => partitionOfKey(String(mmsi), partitions);
  let db: ScratchDatabase;
  let service: RunningService;
  let writer: string;
  let zoneId: string;
  const zoneName = `Feed-silence anchorage ${unique('gap')}`;

  beforeAll(async () => {
    db = await scratchDatabase('aisgapfeed');
    service = await startService(
      testConfig({ PSS_DATABASE_URL: db.url, PSS_TOPIC_PREFIX: prefix, PSS_MARITIME_ZONE_WORKERS: '2', PSS_HEALTH_REPORT_INTERVAL_MS: '300', PSS_HEALTH_DEBOUNCE_MS: '500', PSS_FEED_SILENCE_MS: '2000' }),
      ['api', 'processors'], testLog, [authFeature, ingestFeature, maritimeFeature, systemFeature],
    );
    const { pool, config } = service.context;
    writer = (await createApiKey(pool, config.environment, { name: 'gap-admin', scopes: ['maritime:write'] }, 'test')).key;
    const zone = await call(`${service.url}/v1/maritime/zones`, writer, { method: 'POST', json: { name: zoneName, type: 'anchorage', alert_level: 'low', geometry: { type: 'Circle', center: ZONE_CENTRE, radius_meters: 2000 } } });
    expect(zone.status, JSON.stringify(zone.json)).toBe(201);
    zoneId = zone.json.data.id;
    const rules = await call(`${service.url}/v1/maritime/zones/${zoneId}/rules`, writer, { method: 'PUT', json: { ais_rules: { alert_on: [{ ais_loss_seconds: LOSS_SECONDS }], alert_level: 'high' } } });
    expect(rules.status, JSON.stringify(rules.json)).toBe(200);
    await new Promise((r) => setTimeout(r, 2_000));
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
    await db?.drop();
    await withAdmin((admin) => admin.deleteTopics(topicSpecs(prefix).map((t) => t.name))).catch(() => undefined);
  });

  /** Twelve vessels: `silent` and eleven others, on the silent vessel's partition (`sharing`) or never on it. */
  function fleet(sharing: boolean): { silent: number; others: number[] } {
    const silent = 219_200_000 + Math.floor(Math.random() * 700_000);
    const others: number[] = [];
    for (let m = silent + 1; others.length < 11; m++) {
      const same = partitionIn(m) === partitionIn(silent);
      if (same ? sharing && others.length === 0 : !sharing || others.length > 0) others.push(m);
    }
    return { silent, others };
  }

  const gapsFor = async (mmsi: number) =>
    (await service.context.pool.query<{ body: SecurityEvent }>("SELECT body FROM security_events WHERE type IN ('ais_gap', 'ais_gap_end') AND body->'metadata'->>'mmsi' = $1", [String(mmsi)])).rows.map((r) => r.body);

  async function batchThenSilence(sharing: boolean): Promise<void> {
    const { silent, others } = fleet(sharing);
    expect(others.some((m) => partitionIn(m) === partitionIn(silent))).toBe(sharing);
    const sensor = await createApiKey(service.context.pool, service.context.config.environment, { name: unique('gap-sensor'), scopes: ['ingest:write'] }, 'test');
    const feedDown = async () => ((await service.context.pool.query('SELECT 1 FROM feed_outages WHERE feed = $1 AND resumed_at IS NULL', [`http:${sensor.id}`])).rowCount ?? 0) > 0;
    // The feed was heard once (a vessel not in the batch) and fell silent before the batch.
    const first = await call(`${service.url}/v1/ingest/ais`, sensor.key, { method: 'POST', json: { reports: [report(silent - 1, Date.now(), ELSEWHERE)] } });
    expect(first.status, JSON.stringify(first.json)).toBe(202);
    await pollFor(async () => ((await feedDown()) ? true : undefined), 30_000, () => 'the feed recorded silent before the batch');

    // 14 minutes of event time, ending a minute ago.
    const t0 = Math.floor((Date.now() - 15 * 60_000) / 1000) * 1000;
    const reports: Report[] = [];
    for (let s = 0; s <= 120; s += 30) reports.push(report(silent, t0 + s * 1000, ZONE_CENTRE));
    for (const mmsi of others) for (let minute = 0; minute <= 14; minute++) reports.push(report(mmsi, t0 + minute * 60_000, [ELSEWHERE[0] + (mmsi % 100) * 0.01, ELSEWHERE[1]]));
    reports.sort((a, b) => Date.parse(a.reported_at) - Date.parse(b.reported_at));
    const res = await call(`${service.url}/v1/ingest/ais`, sensor.key, { method: 'POST', json: { reports } });
    expect(res.status, JSON.stringify(res.json)).toBe(202);

    // The feed falls silent after the batch and the ingest records it; the gap must be there all the same.
    const gap = await pollFor(async () => (await gapsFor(silent)).find((e) => e.type === 'ais_gap'), 60_000, () => `the ais_gap of ${silent} (${sharing ? 'sharing' : 'alone on'} partition ${partitionIn(silent)})`);
    await pollFor(async () => ((await feedDown()) ? true : undefined), 30_000, () => 'the feed recorded silent after the batch');
    // Past a housekeeping period after the outage is known: still one gap, no end.
    await new Promise((r) => setTimeout(r, 12_000));
    expect(gap).toMatchObject({
      severity: 'high',
      timestamp: new Date(t0 + (120 + LOSS_SECONDS) * 1000).toISOString(),
      location: { zone: zoneName },
      metadata: { mmsi: silent, ais_loss_seconds: LOSS_SECONDS, last_seen_at: new Date(t0 + 120_000).toISOString(), silent_from: new Date(t0 + 120_000).toISOString() },
    });
    expect((await gapsFor(silent)).map((e) => e.type)).toEqual(['ais_gap']);
    for (const mmsi of others) expect(await gapsFor(mmsi)).toEqual([]);
  }

  it('raises the ais_gap of a vessel that shares its partition with another vessel of its feed', () => batchThenSilence(true), 150_000);
  it('raises the ais_gap of a vessel alone on its partition', () => batchThenSilence(false), 150_000);
});
