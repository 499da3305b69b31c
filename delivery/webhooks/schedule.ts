// Spec "Webhook deliveries", retry schedule: the delay before each attempt, as data. Attempt 1 is
// immediate; attempts 2 to 8 follow a failure of the one before by these delays.
export const RETRY_DELAYS_MS: readonly number[] = [
  0,
  30_000,
  2 * 60_000,
  10 * 60_000,
  30 * 60_000,
  60 * 60_000,
  3 * 60 * 60_000,
  6 * 60 * 60_000,
];

/** Spec "Limits": webhook attempts, 8 per delivery. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length;

/**
 * When the next attempt of a round is due after `attemptsMade` attempts of it failed, the last at
 * `failedAt` (epoch ms); undefined when the round has had all its attempts.
 */
export function nextAttemptAt(attemptsMade: number, failedAt: number): number | undefined {
  const delay = RETRY_DELAYS_MS[attemptsMade];
  return attemptsMade >= 1 && delay !== undefined ? failedAt + delay : undefined;
}
