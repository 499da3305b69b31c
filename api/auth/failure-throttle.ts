import type { ServiceContext } from '../../platform/context.ts';
import { RateLimiter } from '../http/rate-limit.ts';
import { sha256 } from './secrets.ts';

/**
 * Failed authentication is throttled per client address (issue 8, defect 7): every credential refused
 * by /v1 or by the token endpoint spends a token of the caller's address. The address is the one
 * api/http/client-ip.ts resolves (PSS_TRUSTED_PROXY). A request without a credential costs no lookup and
 * is not counted.
 *
 * An address over its limit is not locked out (issue 21, item 7: behind a shared NAT one guesser locked
 * out everyone). Its credentials are still verified when one of these holds, and served when valid:
 *   - the credential was accepted on this instance before (it is "vouched": its SHA-256 is remembered,
 *     up to VOUCHED_MAX, forgotten when it is refused), so credentials in use keep working;
 *   - else one look-up per refill interval of the address (PSS_AUTH_FAILURES_PER_MINUTE), so a client new
 *     to this instance still gets in, slowly.
 * Anything else is answered 429 before a look-up, so guessing still costs no database work. A credential
 * refused while over the limit gets the very same 429 (never 401 or 403: the answer does not tell a wrong
 * credential from one not checked), and is counted, into a debt of up to one burst, so a guesser that
 * keeps failing stays throttled. Only a complete valid credential is served, which the caller had.
 */
export interface FailureThrottle {
  /** Before a look-up: whether to look the presented secrets up, and whether the address is over its limit. */
  admit(address: string, secrets: readonly unknown[]): Admission;
  /** These secrets were accepted: from now on they are looked up from an address over its limit too. */
  vouch(secrets: readonly unknown[]): void;
  /** A credential from `address` was refused (these secrets are forgotten); returns the address's Retry-After (at least 1). */
  refused(address: string, secrets: readonly unknown[]): number;
}

export interface Admission {
  lookup: boolean;
  /** Over the limit: a refusal is answered 429 with Retry-After `retryAfterSeconds`. */
  throttled: boolean;
  retryAfterSeconds: number;
}

/** Vouched credentials remembered per instance (a hash each, about 100 bytes with the map's entry). */
const VOUCHED_MAX = 10_000;

// One budget per service instance, shared by the /v1 authenticator, the stream and the OAuth token endpoint.
const throttles = new WeakMap<ServiceContext, FailureThrottle>();

export function failureThrottle(ctx: ServiceContext): FailureThrottle {
  let throttle = throttles.get(ctx);
  if (!throttle) {
    throttle = createFailureThrottle(ctx.config.authFailuresBurst, ctx.config.authFailuresPerMinute);
    throttles.set(ctx, throttle);
  }
  return throttle;
}

export function createFailureThrottle(burst: number, perMinute: number, now: () => number = Date.now): FailureThrottle {
  const failures = new RateLimiter({ burst, perSecond: perMinute / 60 }, now);
  const unvouched = new RateLimiter({ burst: 1, perSecond: perMinute / 60 }, now);
  // Insertion order is recency: a hit moves its entry to the end, the oldest goes first.
  const vouched = new Map<string, true>();
  const keyOf = (secret: string) => sha256(secret).toString('base64');
  // Form bodies may hold a repeated field as an array: only strings are secrets.
  const present = (secrets: readonly unknown[]) => secrets.filter((s): s is string => typeof s === 'string' && s !== '');
  return {
    admit(address, secrets) {
      const over = failures.peek(address);
      if (over.allowed) return { lookup: true, throttled: false, retryAfterSeconds: 0 };
      const known = present(secrets).some((s) => vouched.has(keyOf(s)));
      return { lookup: known || unvouched.take(address).allowed, throttled: true, retryAfterSeconds: over.retryAfterSeconds };
    },
    vouch(secrets) {
      for (const key of present(secrets).map(keyOf)) {
        vouched.delete(key);
        vouched.set(key, true);
        if (vouched.size > VOUCHED_MAX) vouched.delete(vouched.keys().next().value as string);
      }
    },
    refused(address, secrets) {
      for (const secret of present(secrets)) vouched.delete(keyOf(secret));
      failures.charge(address, burst);
      const after = failures.peek(address);
      return after.allowed ? 1 : after.retryAfterSeconds;
    },
  };
}
