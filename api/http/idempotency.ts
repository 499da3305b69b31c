// The Idempotency-Key request header (draft-ietf-httpapi-idempotency-key-header), read the same way by
// every route that takes one (POST /v1/events, POST /v1/drones/missions): what a key does is the route's
// own business; its form, and the 400 for a malformed one, are the same everywhere.
import type { Request } from 'express';
import { AppError } from '../../platform/errors.ts';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/** 1 to 255 visible ASCII characters. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** The request's key, undefined without the header; a malformed one is a 400 `bad_request`. */
export function idempotencyKey(req: Request): string | undefined {
  const key = req.header(IDEMPOTENCY_HEADER);
  if (key === undefined) return undefined;
  if (!IDEMPOTENCY_KEY.test(key)) throw new AppError('bad_request', `${IDEMPOTENCY_HEADER} must be 1 to 255 visible ASCII characters`);
  return key;
}
