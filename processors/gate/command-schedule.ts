// How long a gate command waits after a failed attempt before the next (pure; the schedule is data).
// Short first steps, because a truck may be waiting at the barrier; then once a minute without end. A
// command is never given up: a lock must arrive however late, and a late open or hold names its
// transaction, which a controller no longer has at the lane and skips (docs/gate.md "Gate commands").
export const COMMAND_RETRY_DELAYS_MS: readonly number[] = [1_000, 2_000, 5_000, 10_000, 30_000, 60_000];

/** The wait before the next attempt once `attemptsMade` attempts (at least 1) have failed. */
export function commandRetryDelayMs(attemptsMade: number): number {
  const step = Math.min(Math.max(attemptsMade, 1), COMMAND_RETRY_DELAYS_MS.length) - 1;
  return COMMAND_RETRY_DELAYS_MS[step] as number;
}
