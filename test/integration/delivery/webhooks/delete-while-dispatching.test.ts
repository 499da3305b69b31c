// Deleting a webhook while a dispatcher records an attempt of one of its deliveries. The recording used
// to lock the delivery and then the webhook (its counters), the DELETE the webhook and then, cascading,
// its deliveries: when the two met, Postgres aborted one of them as a deadlock (the DELETE answered 500).
// The test forces that order rather than leave it to chance: a third transaction holds a share lock on the
// webhook, the DELETE queues for it first, and the recording of the answer (held by the endpoint until
// then) queues second; when the share lock goes, the DELETE reaches the deliveries.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Dispatcher } from '../../../../delivery/webhooks/dispatcher.ts';
import { enqueueDeliveries } from '../../../../delivery/webhooks/queue.ts';
import { SecretBox } from '../../../../delivery/webhooks/secret-box.ts';
import { createWebhook, deleteWebhook } from '../../../../delivery/webhooks/store.ts';
import { createLogger } from '../../../../platform/log.ts';
import { createPool, migrate, type Pool } from '../../../../platform/postgres.ts';
import { ManualClock } from '../../../support/clock.ts';
import { testEvent } from '../../../support/security-events.ts';
import { testConfig, testLog } from '../../../support/stack.ts';
import { eventually } from '../../../support/webhook-receiver.ts';

/** An endpoint that answers 200 only when told to, and says when a request has arrived. */
async function holdingEndpoint() {
  let arrived = () => undefined as void;
  const requested = new Promise<void>((r) => (arrived = r));
  let release = () => undefined as void;
  const released = new Promise<void>((r) => (release = r));
  let requests = 0;
  const server: Server = createServer((req, res) => {
    requests += 1;
    req.resume();
    arrived();
    void released.then(() => res.end('ok'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/held`,
    requested,
    release,
    requests: () => requests,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

describe('deleting a webhook while its attempt is being recorded', () => {
  const config = testConfig({ PSS_WEBHOOK_ALLOW_LOOPBACK: 'true' });
  const box = new SecretBox('');
  const clock = new ManualClock();
  const logs: string[] = [];
  const log = createLogger('warn', new Writable({ write: (chunk, _enc, done) => void (logs.push(String(chunk)), done()) }));
  let pool: Pool;
  let endpoint: Awaited<ReturnType<typeof holdingEndpoint>>;

  beforeAll(async () => {
    await migrate(config.databaseUrl, testLog);
    pool = createPool(config.databaseUrl, 10);
    endpoint = await holdingEndpoint();
  });
  afterAll(async () => {
    await pool?.end();
    await endpoint?.close();
  });

  /** Backends of this database waiting for a lock, with their queries. */
  const waiting = async () =>
    (await pool.query<{ query: string }>(`SELECT query FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`)).rows.map((r) => r.query);

  it('deletes it, and the dispatcher\'s recording is not aborted as a deadlock', async () => {
    const hook = await createWebhook(pool, box, { name: 'deleted-while-dispatching', url: endpoint.url, events: ['*'], secret: 'whsec_delete_while_dispatching_01' });
    expect(await enqueueDeliveries(pool, [{ webhookId: hook.id, event: testEvent(`webhooks.del-${hook.id}`, 1) }], clock.now())).toBe(1);

    const holder = await pool.connect();
    try {
      const dispatching = new Dispatcher({ pool, config, clock, box, relay: { wake: () => undefined }, log }).runOnce();
      await endpoint.requested;
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM webhooks WHERE id = $1 FOR SHARE', [hook.id]);
      const deleting = deleteWebhook(pool, hook.id).catch((err: unknown) => err);
      const waiters = async (n: number) => (await waiting()).length >= n;
      await eventually(() => waiters(1));
      expect(await waiters(1)).toBe(true);
      endpoint.release();
      await eventually(() => waiters(2));
      expect(await waiters(2)).toBe(true);
      await holder.query('COMMIT');

      expect(await deleting).toBe(true);
      await dispatching;
    } finally {
      holder.release();
    }
    expect(endpoint.requests()).toBe(1);
    expect(logs.join('')).not.toContain('recording attempts failed');
    const left = await pool.query('SELECT 1 FROM webhook_deliveries WHERE webhook_id = $1 UNION ALL SELECT 1 FROM webhooks WHERE id = $1', [hook.id]);
    expect(left.rowCount).toBe(0);
  });
});
