import { describe, expect, it } from 'vitest';
import { fullBucket, takeToken, type Bucket } from '../../../../delivery/stream/inbound-rate.ts';

describe('the inbound message rate of a stream client', () => {
  const rate = { burst: 3, perSecond: 2 };
  const send = (bucket: Bucket, at: number) => takeToken(bucket, at, rate);

  it('lets a burst through, then refuses until tokens come back at the steady rate', () => {
    let bucket: Bucket | undefined = fullBucket(0, rate);
    for (let i = 0; i < 3; i++) bucket = send(bucket as Bucket, 0);
    expect(bucket).toBeDefined();
    expect(send(bucket as Bucket, 0)).toBeUndefined();
    expect(send(bucket as Bucket, 499)).toBeUndefined();
    expect(send(bucket as Bucket, 500)).toEqual({ tokens: 0, at: 500 });
  });

  it('never holds more than the burst, however long the client was quiet', () => {
    let bucket: Bucket | undefined = fullBucket(0, rate);
    bucket = send(bucket, 3_600_000);
    expect(bucket?.tokens).toBe(2);
  });

  it('does not refill when time goes backwards', () => {
    const bucket = { tokens: 0, at: 1_000 };
    expect(send(bucket, 500)).toBeUndefined();
  });
});
