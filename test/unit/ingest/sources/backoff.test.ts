import { describe, expect, it } from 'vitest';
import { reconnectDelayMs } from '../../../../ingest/sources/backoff.ts';

describe('TCP reconnect backoff', () => {
  const backoff = { minMs: 500, maxMs: 30_000 };

  it('doubles from the minimum and stops at the maximum', () => {
    const top = (attempt: number) => reconnectDelayMs(attempt, backoff, () => 1);
    expect([1, 2, 3, 4, 5, 6, 7, 8, 50].map(top)).toEqual([500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
  });

  it('jitters between half and all of the delay', () => {
    expect(reconnectDelayMs(3, backoff, () => 0)).toBe(1_000);
    expect(reconnectDelayMs(3, backoff, () => 0.5)).toBe(1_500);
    for (let i = 0; i < 100; i++) {
      const d = reconnectDelayMs(4, backoff);
      expect(d).toBeGreaterThanOrEqual(2_000);
      expect(d).toBeLessThanOrEqual(4_000);
    }
  });
});
