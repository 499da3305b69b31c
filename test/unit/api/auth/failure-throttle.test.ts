import { describe, expect, it } from 'vitest';
import { createFailureThrottle } from '../../../../api/auth/failure-throttle.ts';

// Issue 21, item 7: an address over its refused-credentials limit still gets its valid credentials served.
const BURST = 3;
const PER_MINUTE = 6; // one token every 10 s
const GOOD = 'svc_test_0123456789abcdef_good';
const WRONG = 'svc_test_fedcba9876543210_wrong';

function setup() {
  let now = 0;
  const throttle = createFailureThrottle(BURST, PER_MINUTE, () => now);
  const overLimit = (address: string) => {
    for (let i = 0; i < BURST; i++) throttle.refused(address, [`guess-${i}`]);
  };
  return { throttle, overLimit, at: (ms: number) => void (now = ms) };
}

describe('the refused-credentials throttle', () => {
  it('looks every credential up below the limit', () => {
    const { throttle } = setup();
    expect(throttle.admit('a', [WRONG])).toEqual({ lookup: true, throttled: false, retryAfterSeconds: 0 });
  });

  it('over the limit, still looks up a credential accepted before (from any address), and not a guess', () => {
    const { throttle, overLimit } = setup();
    throttle.vouch([GOOD]);
    overLimit('a');
    // The first unvouched look-up of a throttled address is allowed, then one per refill interval.
    expect(throttle.admit('a', [WRONG])).toMatchObject({ lookup: true, throttled: true });
    expect(throttle.admit('a', [WRONG])).toEqual({ lookup: false, throttled: true, retryAfterSeconds: 10 });
    expect(throttle.admit('a', [`${WRONG}x`]).lookup).toBe(false);
    expect(throttle.admit('a', [GOOD])).toEqual({ lookup: true, throttled: true, retryAfterSeconds: 10 });
    // Other addresses are not affected.
    expect(throttle.admit('b', [WRONG])).toEqual({ lookup: true, throttled: false, retryAfterSeconds: 0 });
  });

  it('gives a throttled address one look-up of a credential it was not vouched for per refill interval', () => {
    const { throttle, overLimit, at } = setup();
    overLimit('a');
    expect(throttle.admit('a', [GOOD]).lookup).toBe(true);
    expect(throttle.admit('a', [GOOD]).lookup).toBe(false);
    at(9_999);
    expect(throttle.admit('a', [GOOD]).lookup).toBe(false);
    at(10_000);
    expect(throttle.admit('a', [GOOD]).lookup).toBe(true);
  });

  it('keeps counting refusals over the limit, up to one burst of debt', () => {
    const { throttle, overLimit, at } = setup();
    overLimit('a');
    expect(throttle.refused('a', [WRONG])).toBe(20);
    expect(throttle.refused('a', [WRONG])).toBe(30);
    expect(throttle.refused('a', [WRONG])).toBe(40);
    expect(throttle.refused('a', [WRONG])).toBe(40);
    at(39_999);
    expect(throttle.admit('a', [WRONG]).throttled).toBe(true);
    at(40_000);
    expect(throttle.admit('a', [WRONG]).throttled).toBe(false);
  });

  it('forgets a vouched credential once it is refused (revoked, expired, outside its allowlist)', () => {
    const { throttle, overLimit } = setup();
    throttle.vouch([GOOD]);
    overLimit('a');
    throttle.admit('a', [WRONG]); // spends the unvouched look-up
    throttle.refused('b', [GOOD]);
    expect(throttle.admit('a', [GOOD]).lookup).toBe(false);
  });

  it('takes any of several presented secrets (client secret, refresh token), and ignores what is not a string', () => {
    const { throttle, overLimit } = setup();
    throttle.vouch([undefined, GOOD, ['x']]);
    overLimit('a');
    throttle.admit('a', [WRONG]);
    expect(throttle.admit('a', [undefined, WRONG, GOOD]).lookup).toBe(true);
    expect(throttle.admit('a', [['x'], '']).lookup).toBe(false);
  });
});
