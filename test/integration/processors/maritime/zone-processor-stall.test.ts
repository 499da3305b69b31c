import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maritimeFeature } from '../../../../app/features.ts';
import { startService, type RunningService } from '../../../../app/service.ts';
import { KafkaProducer } from '../../../../platform/kafka/index.ts';
import { createLogger } from '../../../../platform/log.ts';
import { metricTotal } from '../../../../platform/metrics.ts';
import { createPool, migrate, type Pool } from '../../../../platform/postgres.ts';
import { ZoneStore } from '../../../../processors/maritime/zones/zone-store.ts';
import type { SecurityEvent } from '../../../../schemas/event.ts';
import { consumeUntil, testConfig, testKafka, testLog, unique } from '../../../support/stack.ts';
import { startTcpProxy, targetOf, throughProxy, type TcpProxy } from '../../../support/tcp-proxy.ts';
import { position } from '../../../support/tracks.ts';
import { valueOf } from '../../../support/codec.ts';

// Issue 8, defect 8: a half-open Postgres connection held the zone processor for a whole outage. Its
// queries now time out, the batch fails, is counted and logged, and the consumer retries it until
// Postgres answers again: no hang, no lost event.
const CENTER: [number, number] = [10.5, 57.5];
const T0 = new Date('2026-11-20T08:00:00Z');
const BEFORE = 219000881;
const DURING = 219000882;

describe('the zone processor while its Postgres connections stop answering', () => {
  const databaseUrl = testConfig().databaseUrl;
  const producer = new KafkaProducer(testKafka());
  const logs: string[] = [];
  let proxy: TcpProxy;
  let pool: Pool;
  let service: RunningService;

  beforeAll(async () => {
    await migrate(databaseUrl, testLog);
    pool = createPool(databaseUrl, 1);
    await new ZoneStore(pool).create({
      name: `Stall test berth ${unique('zone')}`, type: 'restricted', alert_level: 'high', active: true,
      geometry: { type: 'Circle', center: CENTER, radius_meters: 400 },
    });
    proxy = await startTcpProxy(targetOf(databaseUrl));
    const sink = new Writable({ write: (chunk, _enc, done) => void (logs.push(String(chunk)), done()) });
    service = await startService(
      testConfig({
        PSS_TOPIC_PREFIX: `${unique('stall')}.`,
        PSS_DATABASE_URL: throughProxy(databaseUrl, proxy),
        PSS_DATABASE_STATEMENT_TIMEOUT_MS: '500',
        PSS_DATABASE_CONNECT_TIMEOUT_MS: '500',
      }),
      ['processors'],
      createLogger('info', sink),
      [maritimeFeature],
    );
  });
  afterAll(async () => {
    proxy?.thaw();
    await producer.close();
    await service?.stop();
    await proxy?.close();
    await pool?.end();
  });

  const send = (mmsi: number) =>
    producer.send([{ topic: service.context.topics.aisPositions, key: String(mmsi), value: JSON.stringify(position(mmsi, T0, ...CENTER)) }]);
  const entryOf = (mmsi: number) => (seen: { topic: string; value: Buffer }[]) =>
    seen.some((r) => {
      const e = valueOf(r) as SecurityEvent;
      return e.type === 'zone_entry' && e.metadata.mmsi === mmsi;
    });
  const stalledBatches = () => metricTotal('pss_maritime_batch_timeouts_total');

  it('counts and logs the timed-out batch, retries it, and emits its event once Postgres answers', async () => {
    await send(BEFORE);
    expect(entryOf(BEFORE)(await consumeUntil(service.context.topics.securityEvents, entryOf(BEFORE)))).toBe(true);

    const stalledBefore = await stalledBatches();
    proxy.freeze();
    await send(DURING);
    // Frozen until the batch has timed out at least twice (it used to wait for an answer forever).
    const retried = await within(20_000, async () => (await stalledBatches()) >= stalledBefore + 2);
    proxy.thaw();

    const events = await consumeUntil(service.context.topics.securityEvents, entryOf(DURING), { timeoutMs: 30_000 });
    expect(entryOf(DURING)(events)).toBe(true);
    expect(retried).toBe(true);
    expect(logs.join('')).toContain('batch stalled: a Postgres query timed out');
  });
});

async function within(ms: number, done: () => Promise<boolean>): Promise<boolean> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
    if (await done()) return true;
  }
  return false;
}
