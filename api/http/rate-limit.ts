/**
 * Token-bucket rate limiting, one bucket per key (a credential id, a client_id or a client address).
 * State is per process: each API instance enforces the limits on its own share of the traffic, which
 * is what docs/api.md "Rate limits" documents. The clock is injected so tests control time.
 */
export interface RateLimit {
  /** Bucket size: requests allowed at once. */
  burst: number;
  /** Tokens added per second. */
  perSecond: number;
}

export type Decision = { allowed: true; remaining: number } | { allowed: false; retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  at: number;
}

/** Above this many tracked keys, buckets that have refilled completely are dropped (they equal a fresh bucket). */
const PRUNE_ABOVE = 10_000;

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    readonly limit: RateLimit,
    private readonly now: () => number = Date.now,
  ) {}

  take(key: string): Decision {
    const now = this.now();
    const bucket = this.refilled(this.buckets.get(key), now);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      this.buckets.set(key, bucket);
      if (this.buckets.size > PRUNE_ABOVE) this.prune(now);
      return { allowed: true, remaining: Math.floor(bucket.tokens) };
    }
    this.buckets.set(key, bucket);
    return { allowed: false, retryAfterSeconds: this.retryAfter(bucket) };
  }

  /**
   * Spends a token even when none is left, down to `-maxDebt`, so a key that keeps failing while over
   * its limit stays over it longer (at most `(maxDebt + 1) / perSecond` after it stops). Decides as `take`.
   */
  charge(key: string, maxDebt: number): Decision {
    const now = this.now();
    const bucket = this.refilled(this.buckets.get(key), now);
    const allowed = bucket.tokens >= 1;
    bucket.tokens = Math.max(-maxDebt, bucket.tokens - 1);
    this.buckets.set(key, bucket);
    if (this.buckets.size > PRUNE_ABOVE) this.prune(now);
    return allowed ? { allowed: true, remaining: Math.floor(bucket.tokens) } : { allowed: false, retryAfterSeconds: this.retryAfter(bucket) };
  }

  /** What `take` would decide, without spending a token. */
  peek(key: string): Decision {
    const bucket = this.refilled(this.buckets.get(key), this.now());
    if (bucket.tokens >= 1) return { allowed: true, remaining: Math.floor(bucket.tokens) };
    return { allowed: false, retryAfterSeconds: this.retryAfter(bucket) };
  }

  private retryAfter(bucket: Bucket): number {
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.limit.perSecond));
  }

  private refilled(bucket: Bucket | undefined, now: number): Bucket {
    if (!bucket) return { tokens: this.limit.burst, at: now };
    const elapsed = Math.max(0, now - bucket.at) / 1000;
    return { tokens: Math.min(this.limit.burst, bucket.tokens + elapsed * this.limit.perSecond), at: now };
  }

  private prune(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (this.refilled(bucket, now).tokens >= this.limit.burst) this.buckets.delete(key);
    }
  }
}
