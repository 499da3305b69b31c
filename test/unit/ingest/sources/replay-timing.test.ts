import { describe, expect, it } from 'vitest';
import { hasRecordedTimes, parseRate, ReplayClock, recordedTimeMs, SyntheticClock } from '../../../../ingest/sources/replay-timing.ts';

describe('replay timing', () => {
  it('reads the recorded time from a tag block c: field (seconds or milliseconds)', () => {
    expect(recordedTimeMs('\\s:42809,c:1635731889,t:1635731965*6A\\!AIVDM,1,1,,,403t>B1vFhQr5`NonbBw?>G00<0n,0*7B')).toBe(1635731889_000);
    expect(recordedTimeMs('\\c:1420030798*00\\!ABVDM,1,1,4,B,17P;HV?P008F98Il;EC1mOwL0@KP,0*22')).toBe(1420030798_000);
  });

  it('reads the recorded time from a Gatehouse $PGHP sentence', () => {
    expect(recordedTimeMs('$PGHP,1,2010,6,11,11,46,11,929,244,0,,1,72*21')).toBe(Date.UTC(2010, 5, 11, 11, 46, 11, 929));
  });

  it('finds no time in a bare sentence or garbage', () => {
    expect(recordedTimeMs('!AIVDM,1,1,,B,13A><b0P010qaGPOo2Gcl?w208C?,0*04')).toBeUndefined();
    expect(recordedTimeMs('\\broken')).toBeUndefined();
    expect(recordedTimeMs('')).toBeUndefined();
  });

  it('keeps the recorded spacing at speed 1 and compresses it at speed 10', () => {
    const real = new ReplayClock({ speed: 1, maxGapMs: 60_000 });
    expect(real.delayMs(1_000, 50_000)).toBe(0);
    expect(real.delayMs(3_000, 50_000)).toBe(2_000);
    expect(real.delayMs(3_500, 52_000)).toBe(500);
    const fast = new ReplayClock({ speed: 10, maxGapMs: 60_000 });
    expect(fast.delayMs(1_000, 0)).toBe(0);
    expect(fast.delayMs(21_000, 0)).toBe(2_000);
  });

  it('does not wait when the feed is behind or times go backwards', () => {
    const clock = new ReplayClock({ speed: 1, maxGapMs: 60_000 });
    clock.delayMs(10_000, 0);
    expect(clock.delayMs(12_000, 5_000)).toBe(0);
    expect(clock.delayMs(11_000, 5_000)).toBe(0);
  });

  it('skips a recorded gap longer than maxGapMs instead of waiting it out', () => {
    const clock = new ReplayClock({ speed: 1, maxGapMs: 60_000 });
    clock.delayMs(0, 0);
    expect(clock.delayMs(3_600_000, 100)).toBe(0);
    expect(clock.delayMs(3_601_000, 100)).toBe(1_000);
  });

  it('refuses a speed that is not positive', () => {
    expect(() => new ReplayClock({ speed: 0, maxGapMs: 1 })).toThrow(RangeError);
  });
});

describe('the synthetic clock of recordings without per-line times (issue 8, defect 11)', () => {
  it('reads a rate of lines per second, minute or hour of event time', () => {
    expect(parseRate('50/s')).toBe(50);
    expect(parseRate('50')).toBe(50);
    expect(parseRate('3000/min')).toBe(50);
    expect(parseRate('7200/h')).toBe(2);
    expect(parseRate('0.5/s')).toBe(0.5);
  });

  it('refuses a rate that is not one, is zero, or gives two lines the same millisecond', () => {
    for (const bad of ['', 'fast', '-5/s', '0', '50/day', '1001/s', '5/s/s']) expect(parseRate(bad), bad).toBeUndefined();
    expect(parseRate('1000/s')).toBe(1_000);
    expect(() => new SyntheticClock(0, 0)).toThrow(RangeError);
  });

  it('stamps line i at origin + i / rate, increasing by 1000 / rate ms a line', () => {
    const clock = new SyntheticClock(1_000_000, 50);
    expect([clock.next(), clock.next(), clock.next()]).toEqual([1_000_000, 1_000_020, 1_000_040]);
    expect(clock.at(3_000)).toBe(1_000_000 + 60_000);
    // at() is pure: reading it does not move the stamps.
    expect(clock.next()).toBe(1_000_060);
  });

  it('never gives two lines the same millisecond, even at 1,000 lines a second or an odd rate', () => {
    for (const rate of [1_000, 3, 999.9]) {
      const clock = new SyntheticClock(0, rate);
      const times = Array.from({ length: 5_000 }, () => clock.next());
      expect(times.every((t, i) => i === 0 || t > (times[i - 1] as number)), String(rate)).toBe(true);
    }
  });

  it('tells a recording without times from one with tag block or $PGHP times', () => {
    const bare = '!AIVDM,1,1,,B,13A><b0P010qaGPOo2Gcl?w208C?,0*04';
    expect(hasRecordedTimes([bare, '', bare])).toBe(false);
    expect(hasRecordedTimes([bare, '$PGHP,1,2010,6,11,11,46,11,929,244,0,,1,72*21', bare])).toBe(true);
    expect(hasRecordedTimes([`\\c:1420030798*00\\${bare}`])).toBe(true);
    // Only the first lines are probed.
    expect(hasRecordedTimes([...Array(1_000).fill(bare), '$PGHP,1,2010,6,11,11,46,11,929,244,0,,1,72*21'])).toBe(false);
  });
});
