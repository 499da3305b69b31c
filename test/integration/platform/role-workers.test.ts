// startRoleWorkers (platform/role-workers.ts) with a fixture role: the workers build their own clients on
// the real stack, wake the main thread's relay, log where the main thread logs and at its level, report
// their metrics into this process's /metrics view, and a worker that crashes is named by the readiness check and started again.
import { Writable } from 'node:stream';
import { BroadcastChannel } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCodec } from '../../../platform/codec/index.ts';
import type { RunningRole, ServiceContext } from '../../../platform/context.ts';
import { KafkaProducer, stuckConsumers } from '../../../platform/kafka/index.ts';
import { createLogger } from '../../../platform/log.ts';
import { metricTotal } from '../../../platform/metrics.ts';
import { createPool } from '../../../platform/postgres.ts';
import { startRoleWorkers } from '../../../platform/role-workers.ts';
import { testConfig, testKafka, testLog, testTopics } from '../../support/stack.ts';

async function until(what: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await what())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('role workers', () => {
  const config = testConfig();
  const kafka = testKafka('pss-role-workers-test');
  const pool = createPool(config.databaseUrl, 2, testLog);
  const producer = new KafkaProducer(kafka);
  const channel = new BroadcastChannel('pss-role-workers-test');
  const lines: Record<string, unknown>[] = [];
  const log = createLogger('info', new Writable({ write: (chunk, _enc, done) => void (lines.push(JSON.parse(String(chunk)) as Record<string, unknown>), done()) }));
  let wakes = 0;
  let role: RunningRole;

  beforeAll(async () => {
    const ctx: ServiceContext = { config, log, pool, kafka, topics: testTopics(), producer, codec: await createCodec('', testTopics()), relay: { wake: () => wakes++ } };
    role = await startRoleWorkers(ctx, { name: 'test-role', module: new URL('../../fixtures/workers/test-role.ts', import.meta.url), start: 'startTestRole', count: 2, reportEveryMs: 50 });
  });
  afterAll(async () => {
    channel.close();
    await role?.stop(Date.now() + 10_000);
    await producer.close();
    await pool.end();
  });

  it('starts the role in each worker, and counts their metrics in this process', async () => {
    await until(async () => (await metricTotal('pss_test_role_starts_total')) === 2);
    expect(stuckConsumers(kafka)).toEqual([]);
  });

  it('wakes the main thread\'s relay when a worker asks', async () => {
    channel.postMessage('wake');
    await until(() => wakes === 2);
  });

  it('writes the workers\' log lines to the main thread\'s logger, at its level', async () => {
    channel.postMessage('log:hello');
    const said = () => lines.filter((l) => l.text === 'hello');
    await until(() => said().length === 2);
    // A worker's messages arrive in order: once its next wake is here, a debug line would be too.
    channel.postMessage('wake');
    await until(() => wakes === 4);
    expect(said().map((l) => [l.worker, l.msg, l.level]).sort()).toEqual([
      ['test-role-0', 'test role says', 40],
      ['test-role-1', 'test role says', 40],
    ]);
  });

  it('names a crashed worker in readiness and starts it again', async () => {
    const troubles: string[][] = [];
    const watching = setInterval(() => troubles.push(stuckConsumers(kafka)), 10);
    channel.postMessage('crash:test-role-1');
    try {
      await until(() => troubles.some((t) => t.length > 0) && stuckConsumers(kafka).length === 0);
    } finally {
      clearInterval(watching);
    }
    expect(troubles.flat()).toContain('test-role-1: exited with code 1; restarting');
    // Both running again: each wakes the relay.
    channel.postMessage('wake');
    await until(() => wakes === 6);
  });
});
