import type { ServiceContext } from '../../platform/context.ts';
import { RateLimiter, type Decision } from '../http/rate-limit.ts';

/**
 * Failed authentication is throttled per client address (issue 8, defect 7): every credential refused
 * by /v1 or by the token endpoint spends a token of the caller's address, and an address with none
 * left is answered 429 before its next credential is looked up. Guessing then costs the service no
 * database work, and rotating the client_id at the token endpoint buys nothing. The address is the
 * one api/http/client-ip.ts resolves (PSS_TRUSTED_PROXY). A request without a credential costs no
 * lookup and is not counted.
 */
export interface FailureThrottle {
  /** Whether `address` may present a credential now; never spends a token. */
  check(address: string): Decision;
  /** A credential from `address` was refused. */
  failed(address: string): void;
}

// One budget per service instance, shared by the /v1 authenticator and the OAuth token endpoint.
const throttles = new WeakMap<ServiceContext, FailureThrottle>();

export function failureThrottle(ctx: ServiceContext): FailureThrottle {
  let throttle = throttles.get(ctx);
  if (!throttle) {
    const limiter = new RateLimiter({ burst: ctx.config.authFailuresBurst, perSecond: ctx.config.authFailuresPerMinute / 60 });
    throttle = { check: (address) => limiter.peek(address), failed: (address) => void limiter.take(address) };
    throttles.set(ctx, throttle);
  }
  return throttle;
}
