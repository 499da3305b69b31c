// Issue 25, "Done means": an AIS source that goes quiet is one feed event, and its vessels raise no
// ais_gap while it is silent. Two HTTP ingest credentials are two feeds (source `http:<credential>`);
// feed B keeps reporting, so the partitions' event-time watermarks move on and the AIS-gap rule is live
// (vessel B2, silent on a live feed, gets its ais_gap: the control), while vessel A1, whose feed A fell
// silent, gets none, then none at its return either. A fixed 2 s silence limit and the smallest AIS-loss limit (30 s)
// keep it short; a scratch database, since the health reports are database-wide.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../api/auth/api-keys.ts';
import { authFeature, ingestFeature, maritimeFeature, systemFeature } from '../../app/features.ts';
import { startService, type RunningService } from '../../app/service.ts';
import { partitionOfKey } from '../../platform/kafka/index.ts';
import { topicSpecs } from '../../platform/topics.ts';
import { pollFor } from '../support/poll.ts';
import { scratchDatabase, type ScratchDatabase } from '../support/scratch-database.ts';
import { call } from '../support/service.ts';
import { testConfig, testLog, unique, withAdmin } from '../support/stack.ts';

const ZONE_CENTRE: [number, number] = [-23.5, 43.2];
const LOSS_SECONDS = 30; // the smallest the rules accept

function onePartition(from: number, count: number, partitions: number): number[] {
  const out = [from];
  for (let m = from + 1; out.length < count; m++) if (partitionOfKey(String(m), partitions) === partitionOfKey(String(from), partitions)) out.push(m);
  return out;
}

describe('an AIS feed that falls silent', () => {
  const prefix = `${unique('feedsilence')}.`;
  let db: ScratchDatabase;
  let service: RunningService;
  let sensorA: { id: string; key: string };
  let sensorB: { id: string; key: string };
  let reader: string;
  // All three on one partition of ais.positions: B1's reports move the watermark that judges A1 and B2.
  const [b1, a1, b2] = onePartition(219_900_000 + Math.floor(Math.random() * 90_000), 3, topicSpecs(prefix).find((t) => t.name === `${prefix}ais.positions`)!.partitions) as [number, number, number];

  const report = (mmsi: number) => ({ msg_type: 1, mmsi, lat: ZONE_CENTRE[1], lon: ZONE_CENTRE[0], sog: 0.1, cog: 90, reported_at: new Date().toISOString() });
  const send = async (sensor: string, mmsis: number[]) => {
    const res = await call(`${service.url}/v1/ingest/ais`, sensor, { method: 'POST', json: { reports: mmsis.map(report) } });
    expect(res.status, JSON.stringify(res.json)).toBe(202);
  };
  const eventsOf = async (type: string) =>
    (await service.context.pool.query<{ body: { metadata: Record<string, unknown>; severity: string } }>('SELECT body FROM security_events WHERE type = $1 ORDER BY occurred_at, id', [type])).rows.map((r) => r.body);
  const feedComponent = () => `ais_source:http:${sensorA.id}`;

  beforeAll(async () => {
    db = await scratchDatabase('feeds');
    const config = testConfig({
      PSS_DATABASE_URL: db.url,
      PSS_TOPIC_PREFIX: prefix,
      PSS_HEALTH_REPORT_INTERVAL_MS: '300',
      PSS_HEALTH_DEBOUNCE_MS: '500',
      PSS_FEED_SILENCE_MS: '2000',
    });
    service = await startService(config, ['api', 'processors'], testLog, [authFeature, ingestFeature, maritimeFeature, systemFeature]);
    const { pool } = service.context;
    const writer = (await createApiKey(pool, config.environment, { name: 'feeds-admin', scopes: ['maritime:write'] }, 'test')).key;
    reader = (await createApiKey(pool, config.environment, { name: 'feeds-reader', scopes: ['system:read'] }, 'test')).key;
    sensorA = await createApiKey(pool, config.environment, { name: 'feed-a', scopes: ['ingest:write'] }, 'test');
    sensorB = await createApiKey(pool, config.environment, { name: 'feed-b', scopes: ['ingest:write'] }, 'test');
    const zone = await call(`${service.url}/v1/maritime/zones`, writer, { method: 'POST', json: { name: `Feed silence anchorage ${unique('z')}`, type: 'anchorage', alert_level: 'low', geometry: { type: 'Circle', center: ZONE_CENTRE, radius_meters: 2000 } } });
    expect(zone.status, JSON.stringify(zone.json)).toBe(201);
    const rules = await call(`${service.url}/v1/maritime/zones/${zone.json.data.id}/rules`, writer, { method: 'PUT', json: { ais_rules: { alert_on: [{ ais_loss_seconds: LOSS_SECONDS }], alert_level: 'high' } } });
    expect(rules.status, JSON.stringify(rules.json)).toBe(200);
    // The processors reload zones and rules on the NOTIFY of that commit.
    await new Promise((r) => setTimeout(r, 2_000));
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
    await db?.drop();
    await withAdmin((admin) => admin.deleteTopics(topicSpecs(prefix).map((t) => t.name))).catch(() => undefined);
  });

  it('is one system_health_change for the feed, and its vessels raise no ais_gap while it is silent or at its return', async () => {
    for (let i = 0; i < 6; i++) {
      await Promise.all([send(sensorA.key, [a1]), send(sensorB.key, [b1, b2])]);
      await new Promise((r) => setTimeout(r, 500));
    }
    await pollFor(async () => ((await eventsOf('zone_entry')).length >= 3 ? true : undefined), 30_000, () => 'zone entries of the three vessels');

    // Feed A stops; on feed B, B2 stops too (the control) while B1 keeps the watermarks moving.
    let gapB2: unknown;
    const deadline = Date.now() + 90_000;
    while (gapB2 === undefined && Date.now() < deadline) {
      await send(sensorB.key, [b1]);
      await new Promise((r) => setTimeout(r, 500));
      gapB2 = (await eventsOf('ais_gap')).find((e) => e.metadata.mmsi === b2);
    }
    expect(gapB2, 'the control vessel on the live feed got its ais_gap').toBeDefined();
    const health = await call(`${service.url}/v1/system/health`, reader);
    const feed = (health.json.data.components as { component: string; status: string; reason: string }[]).find((c) => c.component === feedComponent());
    expect(feed, JSON.stringify(health.json)).toMatchObject({ status: 'down' });
    expect(feed!.reason).toMatch(/^no report for [\d.]+ s \(limit 2 s\)/);
    expect((await eventsOf('ais_gap')).filter((e) => e.metadata.mmsi === a1)).toEqual([]);

    // Feed A returns: A1 reports again, still no gap (nor gap end), and the feed is ok again. Both feeds
    // keep reporting to the end, so neither falls silent again meanwhile.
    const changesOfA = async () => (await eventsOf('system_health_change')).filter((e) => e.metadata.component === feedComponent());
    let quietUntil = Number.POSITIVE_INFINITY;
    const end = Date.now() + 30_000;
    while (Date.now() < Math.min(end, quietUntil)) {
      await Promise.all([send(sensorA.key, [a1]), send(sensorB.key, [b1])]);
      await new Promise((r) => setTimeout(r, 500));
      // Two more seconds after the return's event, so a second one would show.
      if (quietUntil === Number.POSITIVE_INFINITY && (await changesOfA()).length >= 2) quietUntil = Date.now() + 2_000;
    }
    const changes = await changesOfA();
    expect(changes.map((e) => [e.metadata.status, e.severity])).toEqual([['down', 'high'], ['ok', 'low']]);
    expect((await eventsOf('ais_gap')).concat(await eventsOf('ais_gap_end')).filter((e) => e.metadata.mmsi === a1)).toEqual([]);
    // Feed B never fell silent.
    expect((await eventsOf('system_health_change')).filter((e) => e.metadata.component === `ais_source:http:${sensorB.id}`)).toEqual([]);
    const { rows } = await service.context.pool.query('SELECT feed, resumed_at IS NOT NULL AS resumed FROM feed_outages');
    expect(rows, 'the outage of feed A, closed at its return').toEqual([{ feed: `http:${sensorA.id}`, resumed: true }]);
  }, 150_000);
});
