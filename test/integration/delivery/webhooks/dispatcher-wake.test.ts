// Deliveries recorded by another instance's matcher wake this instance's dispatcher at once (NOTIFY on
// pss_webhook_due), not at its next poll: with the poll at a minute, the attempt still arrives in seconds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Dispatcher } from '../../../../delivery/webhooks/dispatcher.ts';
import { enqueueDeliveries } from '../../../../delivery/webhooks/queue.ts';
import { SecretBox } from '../../../../delivery/webhooks/secret-box.ts';
import { createWebhook } from '../../../../delivery/webhooks/store.ts';
import { systemClock } from '../../../../platform/clock.ts';
import { createPool, migrate, type Pool } from '../../../../platform/postgres.ts';
import { testEvent } from '../../../support/security-events.ts';
import { testConfig, testLog } from '../../../support/stack.ts';
import { eventually, startReceiver, type Receiver } from '../../../support/webhook-receiver.ts';

describe('a dispatcher woken by deliveries recorded elsewhere', () => {
  const config = testConfig({ PSS_WEBHOOK_ALLOW_LOOPBACK: 'true', PSS_WEBHOOK_POLL_MS: '60000' });
  const box = new SecretBox('');
  const module = `webhooks.wake-${Math.random().toString(36).slice(2, 8)}`;
  let pool: Pool;
  let receiver: Receiver;
  let dispatcher: Dispatcher;
  let hookId: string;

  beforeAll(async () => {
    await migrate(config.databaseUrl, testLog);
    pool = createPool(config.databaseUrl, 4);
    receiver = await startReceiver();
    hookId = (await createWebhook(pool, box, { name: 'woken', url: receiver.url('/woken'), events: ['*'], secret: 'whsec_dispatcher_wake_0123456789' })).id;
    dispatcher = new Dispatcher({ pool, config, clock: systemClock, box, relay: { wake: () => undefined }, log: testLog });
    dispatcher.start();
    await eventually(() => dispatcher.listening, 10_000);
    expect(dispatcher.listening).toBe(true);
    // The start-up claim has run; from now on only a wake or the minute's poll makes it claim.
    await new Promise((r) => setTimeout(r, 500));
  });
  afterAll(async () => {
    await dispatcher?.stop();
    await pool?.query('DELETE FROM webhooks WHERE id = $1', [hookId]);
    await pool?.end();
    await receiver?.close();
  });

  it('sends a delivery another instance recorded within seconds, though its poll is a minute', async () => {
    const recordedAt = Date.now();
    // As another instance's matcher records it: this dispatcher's wake() is not called.
    expect(await enqueueDeliveries(pool, [{ webhookId: hookId, event: testEvent(module, 1) }], Date.now())).toBe(1);
    await eventually(() => receiver.received.some((r) => r.path === '/woken'), 10_000);
    const got = receiver.received.filter((r) => r.path === '/woken');
    expect(got, 'no attempt within 10 s: the dispatcher waited for its poll').toHaveLength(1);
    expect(Date.now() - recordedAt).toBeLessThan(10_000);
  });
});
