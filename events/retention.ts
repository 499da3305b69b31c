// Event retention (PSS_EVENT_RETENTION_DAYS): events stored longer ago than the setting are deleted, with
// their outbox entry, triage and change history, in small batches so no statement holds many locks or runs
// long. Every api instance runs the job; batches skip rows another instance (or an operator's change) holds.
import type { RunningRole } from '../platform/context.ts';
import type { Logger } from '../platform/log.ts';
import { counter } from '../platform/metrics.ts';
import { startRetention } from '../platform/periodic-job.ts';
import { deleteInBatches, type Pool } from '../platform/postgres.ts';

const expired = counter('pss_events_expired_total', 'Security events deleted by retention (PSS_EVENT_RETENTION_DAYS)');

const BATCH = 5_000;

/**
 * Deletes events stored more than `days` days ago, `batchSize` per statement, until none is left; returns
 * how many. The age counts from storing (created_at), not from the event time, so the events of a replayed
 * old recording are kept as long as any others (as on the security.events topic).
 */
export async function deleteExpiredEvents(pool: Pool, days: number, batchSize = BATCH): Promise<number> {
  return deleteInBatches(
    pool,
    `DELETE FROM security_events WHERE id IN (
       SELECT id FROM security_events WHERE created_at < now() - make_interval(days => $1) LIMIT $2 FOR UPDATE SKIP LOCKED)`,
    [days],
    batchSize,
    expired,
  );
}

/** The hourly job of an api instance (app/features.ts); the first run is at start. 0 days: never deletes. */
export function startEventRetention(ctx: { pool: Pool; log: Logger; config: { eventRetentionDays: number } }): RunningRole {
  return startRetention({ name: 'event-retention', days: ctx.config.eventRetentionDays, log: ctx.log, expire: (days) => deleteExpiredEvents(ctx.pool, days), deletedMessage: 'expired security events deleted' });
}
