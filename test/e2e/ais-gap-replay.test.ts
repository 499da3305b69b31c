// Issue 33, item 4: `pss replay` of a recording of a few vessels in which one goes dark. A replay is its own
// feed (source `replay:<file>` or --source), and with few vessels a partition of ais.positions may carry
// only the dark vessel: the partition falls quiet with it, though the feed does not. The gap must be judged
// on the feed's clock (the others keep reporting), not taken for a feed outage. One zone member
// (PSS_MARITIME_ZONE_WORKERS 0) reads every partition, so the whole feed reaches it; docs/zones-and-rules.md
// (AIS loss) says what members that each read part of a feed share.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApiKey } from '../../api/auth/api-keys.ts';
import { authFeature, ingestFeature, maritimeFeature } from '../../app/features.ts';
import { startService, type RunningService } from '../../app/service.ts';
import { partitionOfKey } from '../../platform/kafka/index.ts';
import { topicSpecs } from '../../platform/topics.ts';
import type { SecurityEvent } from '../../schemas/event.ts';
import { classA, message, tagBlock } from '../unit/ingest/ais/nmea-builder.ts';
import { pollFor } from '../support/poll.ts';
import { call } from '../support/service.ts';
import { testConfig, testLog, unique, withAdmin } from '../support/stack.ts';

const PSS = fileURLToPath(new URL('../../bin/pss.js', import.meta.url));
/** Far from every other test's zones. */
const ZONE_CENTRE: [number, number] = [-25.5, 45.2];
const LOSS_SECONDS = 120;
const SOURCE = 'harbour-night-replay';

function sentence(mmsi: number, atMs: number, [lon, lat]: [number, number]): string {
  const fields = classA({ mmsi, status: 1, sog: 2, accuracy: 1, lon: Math.round(lon * 600_000), lat: Math.round(lat * 600_000), cog: 900, heading: 90, second: new Date(atMs).getUTCSeconds() });
  return `${tagBlock(`c:${atMs},s:night`)}${message(fields)}`;
}

function pssReplay(file: string, env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [PSS, 'replay', file, '--fast', '--source', SOURCE], { env: { ...process.env, ...env } });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe.each(['0', '2'])('pss replay of a recording in which a vessel goes dark (zone workers: %s)', (workers) => {
  const prefix = `${unique('aisgapreplay')}.`;
  const partitions = topicSpecs(prefix).find((t) => t.name === `${prefix}ais.positions`)!.partitions;
  const partitionIn = (mmsi: number) => partitionOfKey(String(mmsi), partitions);
  const dir = mkdtempSync(join(tmpdir(), 'pss-gap-replay-'));
  let service: RunningService;
  let zoneId: string;

  beforeAll(async () => {
    service = await startService(testConfig({ PSS_TOPIC_PREFIX: prefix, PSS_MARITIME_ZONE_WORKERS: workers }), ['api', 'processors'], testLog, [authFeature, ingestFeature, maritimeFeature]);
    const { pool, config } = service.context;
    const writer = (await createApiKey(pool, config.environment, { name: 'replay-gap-admin', scopes: ['maritime:write'] }, 'test')).key;
    const zone = await call(`${service.url}/v1/maritime/zones`, writer, { method: 'POST', json: { name: `Night anchorage ${unique('z')}`, type: 'anchorage', alert_level: 'low', geometry: { type: 'Circle', center: ZONE_CENTRE, radius_meters: 2000 } } });
    expect(zone.status, JSON.stringify(zone.json)).toBe(201);
    zoneId = zone.json.data.id;
    const rules = await call(`${service.url}/v1/maritime/zones/${zoneId}/rules`, writer, { method: 'PUT', json: { ais_rules: { alert_on: [{ ais_loss_seconds: LOSS_SECONDS }], alert_level: 'high' } } });
    expect(rules.status, JSON.stringify(rules.json)).toBe(200);
    await new Promise((r) => setTimeout(r, 2_000));
  }, 120_000);
  afterAll(async () => {
    if (zoneId !== undefined) await service?.context.pool.query('DELETE FROM zones WHERE id = $1', [zoneId]);
    await service?.stop();
    rmSync(dir, { recursive: true, force: true });
    await withAdmin((admin) => admin.deleteTopics(topicSpecs(prefix).map((t) => t.name))).catch(() => undefined);
  });

  it('raises the dark vessel\'s ais_gap and its end, and no feed outage, though its partition carries only it', async () => {
    // DARK in the anchorage every 30 s for 2 minutes, dark for 10, back from 12 to 20 minutes; three
    // vessels elsewhere every minute for 20 minutes, none on DARK's partition.
    const dark = 219_300_000 + Math.floor(Math.random() * 600_000);
    const others: number[] = [];
    for (let m = dark + 1; others.length < 3; m++) if (partitionIn(m) !== partitionIn(dark)) others.push(m);
    const t0 = Math.floor((Date.now() - 40 * 60_000) / 1000) * 1000;
    const lines: { at: number; line: string }[] = [];
    for (const s of [0, 30, 60, 90, 120, ...Array.from({ length: 17 }, (_, i) => 720 + i * 30)]) lines.push({ at: t0 + s * 1000, line: sentence(dark, t0 + s * 1000, ZONE_CENTRE) });
    for (const mmsi of others) for (let minute = 0; minute <= 20; minute++) lines.push({ at: t0 + minute * 60_000, line: sentence(mmsi, t0 + minute * 60_000, [-27.5 + (mmsi % 10) * 0.01, 43.0]) });
    lines.sort((a, b) => a.at - b.at);
    const file = join(dir, 'night.nmea');
    writeFileSync(file, lines.map((l) => l.line).join('\r\n') + '\r\n');

    const run = await pssReplay(file, { PSS_KAFKA_BROKERS: inject('kafkaBrokers'), PSS_TOPIC_PREFIX: prefix, PSS_LOG_LEVEL: 'warn' });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);

    const eventsOf = async (mmsis: number[]) =>
      (await service.context.pool.query<{ body: SecurityEvent }>("SELECT body FROM security_events WHERE body->'metadata'->>'mmsi' = ANY($1) ORDER BY occurred_at, id", [mmsis.map(String)])).rows.map((r) => r.body);
    await pollFor(async () => ((await eventsOf([dark])).some((e) => e.type === 'ais_gap_end') ? true : undefined), 60_000, () => `the ais_gap_end of ${dark} (alone on partition ${partitionIn(dark)})`);
    // Past a housekeeping period, so a second gap would show.
    await new Promise((r) => setTimeout(r, 12_000));
    const gaps = (await eventsOf([dark])).filter((e) => e.type === 'ais_gap' || e.type === 'ais_gap_end');
    expect(gaps.map((e) => [e.type, e.timestamp])).toEqual([
      ['ais_gap', new Date(t0 + (120 + LOSS_SECONDS) * 1000).toISOString()],
      ['ais_gap_end', new Date(t0 + 720_000).toISOString()],
    ]);
    expect(gaps[1]?.metadata).toMatchObject({ gap_duration_seconds: 600, last_seen_at: new Date(t0 + 120_000).toISOString() });
    expect((await eventsOf(others)).filter((e) => e.type === 'ais_gap')).toEqual([]);
    // The feed never stopped: no outage of it seen by the processor.
    const outages = await service.context.pool.query("SELECT 1 FROM security_events WHERE type = 'system_health_change' AND body->'metadata'->>'component' = 'ais_feed' AND occurred_at BETWEEN $1 AND $2", [new Date(t0), new Date(t0 + 20 * 60_000)]);
    expect(outages.rowCount).toBe(0);
  }, 150_000);
});
