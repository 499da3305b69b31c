// Spec "Webhook deliveries", signature rules. `verifyWebhookSignature` is the helper for receivers
// (docs/events-and-delivery.md "Verifying a delivery"); it needs nothing but node:crypto.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Spec "Limits": webhook signature age tolerance (receiver side). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** `sha256=<lowercase hex>` of HMAC-SHA256(secret, timestamp + "." + raw body). */
export function signature(secret: string, timestamp: number, rawBody: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex')}`;
}

export type VerifyResult = { ok: true } | { ok: false; reason: 'malformed' | 'too_old' | 'too_new' | 'mismatch' };

/**
 * Checks a received delivery: the X-Service-Timestamp and X-Service-Signature headers against the raw
 * body bytes as received (not a re-serialization). Compares in constant time; refuses a timestamp more
 * than `toleranceSeconds` from `nowMs`.
 */
export function verifyWebhookSignature(input: {
  secret: string;
  rawBody: string | Buffer;
  signatureHeader: string | undefined;
  timestampHeader: string | undefined;
  nowMs?: number;
  toleranceSeconds?: number;
}): VerifyResult {
  const { secret, rawBody, signatureHeader, timestampHeader, nowMs = Date.now(), toleranceSeconds = SIGNATURE_TOLERANCE_SECONDS } = input;
  if (timestampHeader === undefined || !/^\d{1,12}$/.test(timestampHeader)) return { ok: false, reason: 'malformed' };
  if (signatureHeader === undefined || !/^sha256=[0-9a-f]{64}$/.test(signatureHeader)) return { ok: false, reason: 'malformed' };
  const timestamp = Number(timestampHeader);
  const age = nowMs / 1000 - timestamp;
  if (age > toleranceSeconds) return { ok: false, reason: 'too_old' };
  if (age < -toleranceSeconds) return { ok: false, reason: 'too_new' };
  const expected = Buffer.from(signature(secret, timestamp, rawBody));
  const given = Buffer.from(signatureHeader);
  return expected.length === given.length && timingSafeEqual(expected, given) ? { ok: true } : { ok: false, reason: 'mismatch' };
}
