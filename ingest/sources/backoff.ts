// Reconnect schedule of the TCP source: a pure function of the attempt number, so it is data, not code.

export interface Backoff {
  minMs: number;
  maxMs: number;
}

/**
 * Delay before reconnect attempt `attempt` (1, 2, ...): min * 2^(attempt-1), capped at max, then
 * "equal jitter" (between half and all of it) so many ingest instances do not reconnect in step.
 */
export function reconnectDelayMs(attempt: number, backoff: Backoff, random: () => number = Math.random): number {
  const base = Math.min(backoff.maxMs, backoff.minMs * 2 ** Math.min(Math.max(attempt - 1, 0), 30));
  return Math.round(base / 2 + (base / 2) * random());
}
