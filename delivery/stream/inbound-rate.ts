// How fast one client may send (docs/events-and-delivery.md "Limits on what a client sends"): a token bucket
// over its messages. A client says little (auth, subscribe, now and then update_filters); one that floods the
// server with messages, each answered, is closed for that (1008) instead of being taken for a slow reader
// when the answers pile up. Pure: time is passed in.

export interface InboundRate {
  /** Messages a client may send at once. */
  burst: number;
  /** Messages per second it may keep sending. */
  perSecond: number;
}

export const INBOUND_RATE: InboundRate = { burst: 100, perSecond: 10 };

export interface Bucket {
  tokens: number;
  at: number;
}

export function fullBucket(now: number, rate: InboundRate = INBOUND_RATE): Bucket {
  return { tokens: rate.burst, at: now };
}

/** The bucket after one more message at `now`, or undefined when the client is over its rate. */
export function takeToken(bucket: Bucket, now: number, rate: InboundRate = INBOUND_RATE): Bucket | undefined {
  const refilled = Math.min(rate.burst, bucket.tokens + (Math.max(0, now - bucket.at) * rate.perSecond) / 1000);
  if (refilled < 1) return undefined;
  return { tokens: refilled - 1, at: Math.max(now, bucket.at) };
}
