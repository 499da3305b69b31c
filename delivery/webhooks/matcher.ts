// The matcher: a consumer group on security.events that records one delivery per event and matching
// webhook in the queue (idempotent on webhook and event, so a re-read batch records nothing twice),
// then every instance's dispatcher is woken (NOTIFY, queue.ts). Offsets are committed only after the
// deliveries are stored.
import type { Clock } from '../../platform/clock.ts';
import type { ServiceContext } from '../../platform/context.ts';
import { KafkaConsumer } from '../../platform/kafka/index.ts';
import type { Pool } from '../../platform/postgres.ts';
import type { SecurityEvent } from '../../schemas/event.ts';
import { matches, type WebhookFilter } from './matching.ts';
import { webhookMetrics } from './metrics.ts';
import { enqueueDeliveries, type NewDelivery } from './queue.ts';

interface ActiveWebhook extends WebhookFilter {
  created_ms: number;
}

async function activeWebhooks(pool: Pool): Promise<ActiveWebhook[]> {
  const { rows } = await pool.query<ActiveWebhook>(
    'SELECT id, events, min_severity, categories, zones, (extract(epoch FROM created_at) * 1000)::float8 AS created_ms FROM webhooks WHERE active',
  );
  return rows;
}

/**
 * Every (webhook, event) pair that matches. Pure. A webhook gets the events appended to security.events
 * since it was created, not older ones a lagging or re-reading matcher comes across.
 */
export function deliveriesFor(webhooks: ActiveWebhook[], events: { event: SecurityEvent; appendedAt: number }[]): NewDelivery[] {
  return events.flatMap(({ event, appendedAt }) =>
    webhooks.filter((w) => appendedAt >= w.created_ms && matches(w, event)).map((w) => ({ webhookId: w.id, event })),
  );
}

export async function startMatcher(ctx: ServiceContext, clock: Clock, onRecorded: () => void): Promise<{ stop(): Promise<void> }> {
  const log = ctx.log.child({ role: 'webhook-matcher' });
  const consumer = new KafkaConsumer(ctx.kafka, {
    groupId: `${ctx.config.topicPrefix}webhook-matcher`,
    topics: [ctx.topics.securityEvents],
    maxBatch: 2_000,
    lingerMs: 5,
    // A new group reads the topic from its start: nothing published before its first join is missed, and
    // what is older than a webhook is not delivered to it (deliveriesFor).
    startAt: 'earliest',
  });
  await consumer.run(async (records) => {
    const { values, failures } = await ctx.codec.decode('securityEvents', records);
    for (const f of failures) log.warn({ err: f.error, partition: f.record.partition, offset: String(f.record.offset) }, 'unreadable security event skipped');
    if (values.length === 0) return;
    const webhooks = await activeWebhooks(ctx.pool);
    if (webhooks.length === 0) return;
    const recorded = await enqueueDeliveries(ctx.pool, deliveriesFor(webhooks, values.map((v) => ({ event: v.value, appendedAt: v.record.timestamp }))), clock.now());
    if (recorded > 0) {
      webhookMetrics.matched.inc(recorded);
      onRecorded();
    }
  });
  return { stop: () => consumer.stop() };
}
