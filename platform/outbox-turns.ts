// The decisions of the outbox publisher's loop (outbox-publisher.ts), apart from its Postgres and Kafka:
// whether to work, pause or end; how long to back off after a failed turn; whether a drain takes another
// batch; what a stop that gave up on its batch reports.

/** What the loop does next: a turn, a pause until a wake or the next sweep, or nothing more. */
export type NextStep = 'turn' | 'pause' | 'end';

/**
 * A wake not taken yet is served even while stopping: the relay is stopped last so that it publishes what
 * the other roles stored while they stopped, and a command sender likewise sends what its cause committed.
 */
export function nextStep(wanted: boolean, stopping: boolean): NextStep {
  if (wanted) return 'turn';
  return stopping ? 'end' : 'pause';
}

export interface Backoff {
  /** The pause after the first failed turn in a row. */
  firstMs: number;
  /** The longest pause: doubling stops here. */
  maxMs: number;
}

/** The pause after `failedBefore` failed turns in a row (0: the first failure): firstMs doubling, up to maxMs. */
export function backoffMs(failedBefore: number, backoff: Backoff): number {
  // Capped before the power, so a long outage cannot overflow it to Infinity.
  return Math.min(backoff.maxMs, backoff.firstMs * 2 ** Math.min(failedBefore, 30));
}

/**
 * Whether a drain claims another batch: a batch of `batchSize` or more may have left rows behind; a
 * stopping publisher ends with the batch it has.
 */
export function drainGoesOn(claimed: number, batchSize: number, stopping: boolean): boolean {
  return claimed >= batchSize && !stopping;
}

/** For /readyz: why a publisher whose turn began at `busySince` and has not finished counts as stuck; undefined while it does not. */
export function stuckReason(name: string, busySince: number | undefined, now: number, stuckAfterMs: number | undefined, lastError: Error | undefined): string | undefined {
  if (busySince === undefined || stuckAfterMs === undefined || now - busySince <= stuckAfterMs) return undefined;
  const why = lastError ? `: ${lastError.message}` : '';
  return `the ${name} has not finished a turn for ${Math.round((now - busySince) / 1000)} s${why}`;
}

/** The log line of a stop that reached its deadline with a turn unfinished. */
export function abandonedNote(name: string, outbox: string, rows: number): { fields: { outbox: string; rows: number }; message: string } {
  const message = rows > 0
    ? `${name} stopped at its deadline with ${rows} rows of ${outbox} unacknowledged by Kafka; abandoned: they stay in the outbox and are published after restart`
    : `${name} stopped at its deadline before its turn sent anything; nothing of ${outbox} was claimed for Kafka, the outbox is published after restart`;
  return { fields: { outbox, rows }, message };
}
