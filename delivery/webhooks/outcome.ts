// What an attempt's result means for its delivery (spec "Webhook" and "Webhook delivery" states). Pure:
// the dispatcher records what this decides.
import { MAX_ATTEMPTS, nextAttemptAt } from './schedule.ts';

/** Why an attempt failed, grouped as the health object reports it. */
export type ReasonClass = 'timeout' | 'refused' | 'dns' | 'tls' | 'blocked_address' | '3xx' | '4xx' | '5xx' | 'other';

export interface AttemptResult {
  /** The HTTP status, when an answer came. */
  statusCode?: number;
  /** Set when no 2xx answer came. */
  failure?: { reason: ReasonClass; message: string };
  responseTimeMs: number;
  excerpt?: string;
}

export interface DeliveryRound {
  /** Attempts of the current round made before this one. */
  roundAttempts: number;
  /** A replay or a test send: one attempt, never retried. */
  singleAttempt: boolean;
}

export interface Decision {
  status: 'delivered' | 'pending' | 'failed';
  /** When the next attempt is due (pending only). */
  nextAttemptAt?: number;
  /** The round's last attempt failed: the webhook is failing (spec: after the 8th failure). */
  fullFailure: boolean;
  /** The endpoint answered 410: disable the webhook for good, cancel what is pending. */
  gone: boolean;
}

export function failureOf(statusCode: number): AttemptResult['failure'] {
  if (statusCode >= 200 && statusCode < 300) return undefined;
  const reason: ReasonClass = statusCode >= 500 ? '5xx' : statusCode >= 400 ? '4xx' : statusCode >= 300 ? '3xx' : 'other';
  return { reason, message: `HTTP ${statusCode}` };
}

/**
 * A delivery is retried after any failure (a non-2xx answer, a timeout, and also a refused connection or a
 * DNS failure, which may heal), on the schedule, until its round's 8th attempt; 410 ends it at once.
 */
export function decide(round: DeliveryRound, result: AttemptResult, now: number): Decision {
  if (result.failure === undefined) return { status: 'delivered', fullFailure: false, gone: false };
  if (result.statusCode === 410) return { status: 'failed', fullFailure: false, gone: true };
  const made = round.roundAttempts + 1;
  const next = round.singleAttempt ? undefined : nextAttemptAt(made, now);
  if (next !== undefined) return { status: 'pending', nextAttemptAt: next, fullFailure: false, gone: false };
  return { status: 'failed', fullFailure: !round.singleAttempt && made >= MAX_ATTEMPTS, gone: false };
}

/** Spec "Webhook" states: three consecutive fully failed deliveries deactivate the webhook. */
export const FULL_FAILURES_TO_DEACTIVATE = 3;
