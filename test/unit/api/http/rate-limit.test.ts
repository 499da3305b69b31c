import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../../../api/http/rate-limit.ts';

describe('RateLimiter', () => {
  it('allows a burst, then refuses with the seconds until one request is allowed again', () => {
    let now = 0;
    const limiter = new RateLimiter({ burst: 3, perSecond: 0.5 }, () => now);
    expect([1, 2, 3].map(() => limiter.take('k').allowed)).toEqual([true, true, true]);
    expect(limiter.take('k')).toEqual({ allowed: false, retryAfterSeconds: 2 });
    now = 1_000;
    expect(limiter.take('k')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    now = 2_000;
    expect(limiter.take('k')).toEqual({ allowed: true, remaining: 0 });
  });

  it('charges past empty into a debt of at most maxDebt, which delays the next allowed request', () => {
    let now = 0;
    const limiter = new RateLimiter({ burst: 2, perSecond: 1 }, () => now);
    expect(limiter.charge('k', 2)).toEqual({ allowed: true, remaining: 1 });
    expect(limiter.charge('k', 2)).toEqual({ allowed: true, remaining: 0 });
    expect(limiter.charge('k', 2)).toEqual({ allowed: false, retryAfterSeconds: 2 });
    expect(limiter.charge('k', 2)).toEqual({ allowed: false, retryAfterSeconds: 3 });
    // The debt stops at 2: one more charge changes nothing.
    expect(limiter.charge('k', 2)).toEqual({ allowed: false, retryAfterSeconds: 3 });
    now = 2_999;
    expect(limiter.peek('k').allowed).toBe(false);
    now = 3_000;
    expect(limiter.peek('k')).toEqual({ allowed: true, remaining: 1 });
  });

  it('keeps one bucket per key', () => {
    const limiter = new RateLimiter({ burst: 1, perSecond: 1 }, () => 0);
    expect(limiter.take('a').allowed).toBe(true);
    expect(limiter.take('a').allowed).toBe(false);
    expect(limiter.take('b').allowed).toBe(true);
  });

  it('never refills beyond the burst', () => {
    let now = 0;
    const limiter = new RateLimiter({ burst: 2, perSecond: 10 }, () => now);
    limiter.take('k');
    now = 3_600_000;
    expect(limiter.take('k')).toEqual({ allowed: true, remaining: 1 });
  });

  it('peeks without spending a token', () => {
    let now = 0;
    const limiter = new RateLimiter({ burst: 1, perSecond: 0.25 }, () => now);
    expect(limiter.peek('k')).toEqual({ allowed: true, remaining: 1 });
    expect(limiter.peek('k')).toEqual({ allowed: true, remaining: 1 });
    limiter.take('k');
    expect(limiter.peek('k')).toEqual({ allowed: false, retryAfterSeconds: 4 });
    now = 4_000;
    expect(limiter.peek('k').allowed).toBe(true);
  });
});
