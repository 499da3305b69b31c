// Issue 14, "Done means": two dispatcher processes share the queue and never send one attempt twice; one
// killed with SIGKILL mid-way loses no delivery, and only the attempts it had in flight are sent again
// (by the other, once their lease ends). Instance A is `pss start --roles api` in its own process; B
// runs in this one. The deliveries are queued directly: matching is tested elsewhere.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authFeature, webhooksFeature } from '../../app/features.ts';
import { enqueueDeliveries } from '../../delivery/webhooks/queue.ts';
import { SecretBox } from '../../delivery/webhooks/secret-box.ts';
import { createWebhook } from '../../delivery/webhooks/store.ts';
import { startChildService, type ChildService } from '../support/child-service.ts';
import { testEvent } from '../support/security-events.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { testConfig, unique } from '../support/stack.ts';
import { eventually } from '../support/webhook-receiver.ts';

const DELIVERIES = 1_200;
const WEBHOOKS = 4;
// A timeout well above the receiver's 20 ms, so a loaded machine does not turn answers into retries.
const SETTINGS = { PSS_WEBHOOK_ALLOW_LOOPBACK: 'true', PSS_WEBHOOK_TIMEOUT_MS: '5000', PSS_WEBHOOK_ENDPOINT_CONCURRENCY: '8' };

describe('a webhook dispatcher process killed with SIGKILL', () => {
  const config = testConfig({ PSS_TOPIC_PREFIX: `${unique('wh-crash')}.` });
  const module = `webhooks.crash-${Math.random().toString(36).slice(2, 8)}`;
  let a: ChildService | undefined;
  let b: TestService;
  let server: Server;
  let base = '';
  const received: { id: string; attempt: number }[] = [];
  const hooks: string[] = [];

  beforeAll(async () => {
    // Answers after 20 ms, so each dispatcher has attempts in flight when A is killed.
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string; attempt: number };
        received.push({ id: body.id, attempt: body.attempt });
        setTimeout(() => res.end(), 20);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    b = await startTestService({ PSS_TOPIC_PREFIX: config.topicPrefix, ...SETTINGS }, [authFeature, webhooksFeature()]);
    a = await startChildService(config, 'api', SETTINGS);
  });
  afterAll(async () => {
    await a?.kill();
    await b?.context.pool.query('DELETE FROM webhooks WHERE id = ANY($1)', [hooks]);
    await b?.stop();
    server?.closeAllConnections();
    server?.close();
  });

  it('loses no delivery and repeats only what was in flight', async () => {
    const pool = b.context.pool;
    const box = new SecretBox('');
    for (let i = 0; i < WEBHOOKS; i++) hooks.push((await createWebhook(pool, box, { name: `crash ${i}`, url: `${base}/h/${i}`, events: ['*'], secret: 'whsec_crash_0123456789abcdef' })).id);
    const deliveries = Array.from({ length: DELIVERIES }, (_, n) => ({ webhookId: hooks[n % WEBHOOKS] as string, event: testEvent(module, n) }));
    expect(await enqueueDeliveries(pool, deliveries, Date.now())).toBe(DELIVERIES);

    await eventually(() => received.length >= DELIVERIES / 3, 30_000);
    await a!.kill('SIGKILL');
    const beforeKill = received.length;
    // What A held at its death is among the claims not yet recorded (B's own are in there too).
    const claimedAtKill = Number((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ANY($1) AND claim_token IS NOT NULL`, [hooks])).rows[0]?.n);
    // Two dispatchers while both lived: no attempt was sent twice.
    expect(new Set(received.slice(0, beforeKill).map((r) => r.id)).size).toBe(beforeKill);
    expect(beforeKill).toBeLessThan(DELIVERIES);

    const delivered = async () => Number((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ANY($1) AND status = 'delivered'`, [hooks])).rows[0]?.n);
    // A's claims come back when their lease (timeout + 30 s) ends.
    await eventually(async () => (await delivered()) === DELIVERIES, 90_000);
    expect(await delivered()).toBe(DELIVERIES);
    const ids = new Map<string, number>();
    for (const r of received) ids.set(r.id, (ids.get(r.id) ?? 0) + 1);
    expect(ids.size).toBe(DELIVERIES);
    const repeated = [...ids.values()].filter((n) => n > 1);
    // Only the attempts A had claimed and not recorded went out twice, and only twice.
    expect(repeated.every((n) => n === 2)).toBe(true);
    expect(repeated.length).toBeLessThanOrEqual(claimedAtKill);
    expect(received.every((r) => r.attempt === 1)).toBe(true);
  }, 150_000);
});
