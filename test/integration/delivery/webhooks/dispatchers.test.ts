// Issue 14, "Done means": several dispatchers share the Postgres queue without sending one attempt twice;
// a dispatcher that dies between claim and send, or between send and record, loses no delivery and
// repeats at most the attempt it had in flight; SSRF refusals on the address actually connected to.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Dispatcher, attemptDelivery } from '../../../../delivery/webhooks/dispatcher.ts';
import { claimDue, enqueueDeliveries } from '../../../../delivery/webhooks/queue.ts';
import { SecretBox } from '../../../../delivery/webhooks/secret-box.ts';
import { sendAttempt } from '../../../../delivery/webhooks/sender.ts';
import { createWebhook } from '../../../../delivery/webhooks/store.ts';
import { createPool, migrate, type Pool } from '../../../../platform/postgres.ts';
import { ManualClock } from '../../../support/clock.ts';
import { testEvent } from '../../../support/security-events.ts';
import { testConfig, testLog } from '../../../support/stack.ts';
import { eventually, startReceiver, type Receiver } from '../../../support/webhook-receiver.ts';

const SECRET = 'whsec_dispatchers_0123456789abc';
const TIMEOUT_MS = 5_000;
const LEASE_MS = TIMEOUT_MS + 30_000;

describe('dispatchers sharing the queue', () => {
  const config = { ...testConfig({ PSS_WEBHOOK_ALLOW_LOOPBACK: 'true', PSS_WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) }) };
  const module = `webhooks.disp-${Math.random().toString(36).slice(2, 8)}`;
  const box = new SecretBox('');
  const clock = new ManualClock();
  let pool: Pool;
  let receiver: Receiver;
  const hooks: string[] = [];
  const dispatcher = () => new Dispatcher({ pool, config, clock, box, relay: { wake: () => undefined }, log: testLog });
  const hook = async (path: string) => {
    const w = await createWebhook(pool, box, { name: path, url: receiver.url(path), events: ['*'], secret: SECRET });
    hooks.push(w.id);
    return w.id;
  };
  const enqueue = (webhookId: string, count: number, from: number) =>
    enqueueDeliveries(pool, Array.from({ length: count }, (_, i) => ({ webhookId, event: testEvent(module, from + i) })), clock.now());
  const at = (path: string) => receiver.received.filter((r) => r.path === path);

  beforeAll(async () => {
    await migrate(config.databaseUrl, testLog);
    pool = createPool(config.databaseUrl, 10);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await pool?.query('DELETE FROM webhooks WHERE id = ANY($1)', [hooks]);
    await pool?.end();
    await receiver?.close();
  });

  it('two dispatchers never send the same attempt twice, and send every one', async () => {
    const a = await hook('/shared-a');
    const b = await hook('/shared-b');
    expect(await enqueue(a, 150, 0)).toBe(150);
    expect(await enqueue(b, 150, 1000)).toBe(150);
    // Recording the same events again makes no second delivery.
    expect(await enqueue(a, 150, 0)).toBe(0);
    const one = dispatcher();
    const two = dispatcher();
    await Promise.all([one.runOnce(), two.runOnce(), one.runOnce(), two.runOnce()]);
    const ids = [...at('/shared-a'), ...at('/shared-b')].map((r) => r.body.id);
    expect(ids).toHaveLength(300);
    expect(new Set(ids).size).toBe(300);
    const { rows } = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ANY($1) AND status = 'delivered' AND attempts = 1`, [[a, b]]);
    expect(Number(rows[0]?.n)).toBe(300);
  });

  it('a dispatcher that dies after claiming loses nothing: the attempt comes back when its lease ends', async () => {
    const id = await hook('/claimed-then-died');
    await enqueue(id, 3, 2000);
    const claimed = await claimDue(pool, { now: clock.now(), limit: 10, perEndpoint: 10, inFlight: new Map(), leaseMs: LEASE_MS, token: 'dead-dispatcher' });
    expect(claimed.filter((c) => c.webhookId === id)).toHaveLength(3);
    const survivor = dispatcher();
    await survivor.runOnce();
    expect(at('/claimed-then-died')).toHaveLength(0);
    clock.advance(LEASE_MS);
    await survivor.runOnce();
    expect(at('/claimed-then-died').map((r) => r.body.attempt)).toEqual([1, 1, 1]);
    expect(new Set(at('/claimed-then-died').map((r) => r.body.id)).size).toBe(3);
  });

  it('a dispatcher that dies after sending repeats only the attempt in flight, recorded once', async () => {
    const id = await hook('/sent-then-died');
    await enqueue(id, 1, 3000);
    const [claimed] = (await claimDue(pool, { now: clock.now(), limit: 10, perEndpoint: 10, inFlight: new Map(), leaseMs: LEASE_MS, token: 'dying' })).filter((c) => c.webhookId === id);
    expect(claimed).toBeDefined();
    await attemptDelivery(claimed!, SECRET, { clock, config }); // sent, never recorded: the process died here
    clock.advance(LEASE_MS);
    await dispatcher().runOnce();
    const got = at('/sent-then-died');
    expect(got.map((r) => [r.body.id, r.body.attempt])).toEqual([[claimed!.id, 1], [claimed!.id, 1]]);
    const attempts = await pool.query('SELECT attempt FROM webhook_attempts WHERE delivery_id = $1', [claimed!.id]);
    expect(attempts.rows).toEqual([{ attempt: 1 }]);
  });

  it('a slow endpoint holds only its own slots', async () => {
    const { createServer } = await import('node:http');
    const held: (() => void)[] = [];
    const slow = createServer((_req, res) => held.push(() => res.end('late')));
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    const port = (slow.address() as { port: number }).port;
    const w = await createWebhook(pool, box, { name: 'slow', url: `http://127.0.0.1:${port}/slow`, events: ['*'], secret: SECRET });
    hooks.push(w.id);
    const fast = await hook('/fast');
    await enqueue(w.id, 40, 4000);
    await enqueue(fast, 20, 5000);
    const d = new Dispatcher({ pool, config: { ...config, webhookEndpointConcurrency: 4, webhookConcurrency: 16 }, clock, box, relay: { wake: () => undefined }, log: testLog });
    d.start();
    await eventually(() => at('/fast').length === 20);
    expect(at('/fast')).toHaveLength(20);
    expect(held.length).toBeLessThanOrEqual(4);
    for (const release of held.splice(0)) release();
    await eventually(async () => { for (const r of held.splice(0)) r(); return (await pool.query(`SELECT 1 FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'delivered'`, [w.id])).rowCount === 40; }, 30_000);
    await d.stop();
    slow.closeAllConnections();
    slow.close();
    expect((await pool.query(`SELECT 1 FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'delivered'`, [w.id])).rowCount).toBe(40);
  });
});

describe('SSRF: the address connected to', () => {
  let receiver: Receiver;
  beforeAll(async () => (receiver = await startReceiver()));
  afterAll(() => receiver?.close());
  const send = (url: string, allowLoopback = false) => sendAttempt({ url, headers: {}, body: Buffer.from('{}'), timeoutMs: 2_000, allowLoopback });

  it('refuses literal loopback in every spelling, and a name that resolves to loopback', async () => {
    const port = new URL(receiver.url('/')).port;
    for (const host of ['127.0.0.1', '2130706433', '0x7f.1', '127.1', '[::ffff:127.0.0.1]', '[::1]', 'localhost']) {
      const result = await send(`http://${host}:${port}/ssrf`);
      expect(result.failure?.reason, host).toBe('blocked_address');
    }
    expect(receiver.received).toHaveLength(0);
    // The development setting lets loopback through, through the same lookup.
    expect((await send(`http://localhost:${port}/ssrf`, true)).statusCode).toBe(200);
    expect(receiver.received).toHaveLength(1);
  });

  it('refuses private and metadata literals without connecting', async () => {
    for (const host of ['10.0.0.1', '169.254.169.254', '[fd00:ec2::254]', '100.64.0.1', '198.18.0.1', '[64:ff9b::a9fe:a9fe]']) {
      expect((await send(`https://${host}/x`, true)).failure?.reason, host).toBe('blocked_address');
    }
  });
});
