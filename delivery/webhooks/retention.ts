// Retention of the webhook delivery history (PSS_WEBHOOK_HISTORY_RETENTION_DAYS): finished deliveries
// (delivered, failed, cancelled) that have not changed for that many days are deleted with their
// attempts, in small batches that skip rows a dispatcher or a replay holds. Pending deliveries are never
// deleted, however old: they are still owed to their endpoint.
import type { RunningRole } from '../../platform/context.ts';
import type { Logger } from '../../platform/log.ts';
import { counter } from '../../platform/metrics.ts';
import { startRetention } from '../../platform/periodic-job.ts';
import { deleteInBatches, type Pool } from '../../platform/postgres.ts';

const expired = counter('pss_webhook_deliveries_expired_total', 'Finished webhook deliveries deleted with their attempts by retention (PSS_WEBHOOK_HISTORY_RETENTION_DAYS)');

const BATCH = 5_000;

/**
 * Deletes finished deliveries last changed more than `days` days ago (a replay changes a delivery, so a
 * replayed one is kept from the replay on), `batchSize` per statement, until none is left; returns how many.
 */
export async function deleteExpiredDeliveries(pool: Pool, days: number, batchSize = BATCH): Promise<number> {
  return deleteInBatches(
    pool,
    `DELETE FROM webhook_deliveries WHERE id IN (
       SELECT id FROM webhook_deliveries WHERE status <> 'pending' AND updated_at < now() - make_interval(days => $1)
        LIMIT $2 FOR UPDATE SKIP LOCKED)`,
    [days],
    batchSize,
    expired,
  );
}

/** The hourly job of an api instance, with the dispatcher; the first run is at start. 0 days: never deletes. */
export function startDeliveryRetention(ctx: { pool: Pool; log: Logger; config: { webhookHistoryRetentionDays: number } }): RunningRole {
  return startRetention({ name: 'webhook-history-retention', days: ctx.config.webhookHistoryRetentionDays, log: ctx.log, expire: (days) => deleteExpiredDeliveries(ctx.pool, days), deletedMessage: 'expired webhook deliveries deleted' });
}
