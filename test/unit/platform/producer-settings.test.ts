import { describe, expect, it } from 'vitest';
import { producerSettings, retriesWithin } from '../../../platform/kafka/producer.ts';

describe('producer settings', () => {
  it('are idempotent with acks=all and no topic auto-creation', () => {
    expect(producerSettings()).toMatchObject({ idempotent: true, acks: -1, autocreateTopics: false });
  });

  it('retry for the delivery timeout, backing off from 100 ms to 1 s', () => {
    const { retries, retryDelay } = producerSettings(30_000);
    const delays = Array.from({ length: retries }, (_, i) => retryDelay(undefined, 'produce', i + 1));
    expect(delays.slice(0, 6)).toEqual([100, 200, 400, 800, 1_000, 1_000]);
    const total = delays.reduce((a, b) => a + b, 0);
    expect(total).toBeLessThanOrEqual(30_000);
    expect(total).toBeGreaterThan(29_000);
    // Longer than a KRaft broker's default session timeout (9 s), after which its partitions get new leaders.
    expect(retriesWithin(10_000)).toBe(12);
    expect(retriesWithin(2_000)).toBe(4);
    expect(retriesWithin(50)).toBe(1);
  });
});
