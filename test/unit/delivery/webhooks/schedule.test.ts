import { describe, expect, it } from 'vitest';
import { decide } from '../../../../delivery/webhooks/outcome.ts';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS, nextAttemptAt } from '../../../../delivery/webhooks/schedule.ts';

const T0 = Date.UTC(2026, 10, 23, 12, 0, 0);

describe('retry schedule (spec "Webhook deliveries")', () => {
  it('is the spec\'s table: 8 attempts, the delays before attempts 2 to 8', () => {
    expect(MAX_ATTEMPTS).toBe(8);
    expect(RETRY_DELAYS_MS.slice(1).map((ms) => ms / 1000)).toEqual([30, 120, 600, 1800, 3600, 10800, 21600]);
  });

  it('sums to the spec\'s elapsed column: 10 h 42 min 30 s before attempt 8', () => {
    let at = T0;
    const elapsed: number[] = [];
    for (let made = 1; made < 8; made++) {
      at = nextAttemptAt(made, at) as number;
      elapsed.push((at - T0) / 1000);
    }
    expect(elapsed).toEqual([30, 150, 750, 2550, 6150, 16950, 38550]);
    expect(nextAttemptAt(8, at)).toBeUndefined();
  });
});

describe('decide', () => {
  const fail = (statusCode?: number) => ({ statusCode, failure: { reason: '5xx' as const, message: 'x' }, responseTimeMs: 1 });
  const round = (roundAttempts: number, singleAttempt = false) => ({ roundAttempts, singleAttempt });

  it('delivers on 2xx', () => {
    expect(decide(round(0), { statusCode: 204, responseTimeMs: 1 }, T0)).toEqual({ status: 'delivered', fullFailure: false, gone: false });
  });
  it('retries a failure on the schedule', () => {
    expect(decide(round(0), fail(500), T0)).toEqual({ status: 'pending', nextAttemptAt: T0 + 30_000, fullFailure: false, gone: false });
    expect(decide(round(6), fail(), T0).nextAttemptAt).toBe(T0 + 6 * 3600_000);
  });
  it('fails the delivery for good at the 8th failure', () => {
    expect(decide(round(7), fail(503), T0)).toEqual({ status: 'failed', fullFailure: true, gone: false });
  });
  it('ends at once on 410', () => {
    expect(decide(round(0), fail(410), T0)).toEqual({ status: 'failed', fullFailure: false, gone: true });
  });
  it('does not retry a replay or a test send, nor count it as a full failure', () => {
    expect(decide(round(0, true), fail(500), T0)).toEqual({ status: 'failed', fullFailure: false, gone: false });
  });
});
