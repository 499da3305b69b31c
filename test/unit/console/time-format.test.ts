import { describe, expect, it } from 'vitest';
import { age, clockTime, dateTime, shortTime } from '../../../console/src/time-format.ts';

describe('the console\'s times', () => {
  it('are in the site\'s zone with its abbreviation beside them', () => {
    expect(clockTime('2026-11-28T12:02:11Z', 'Europe/Copenhagen')).toBe('13:02:11 CET');
    expect(clockTime('2026-07-01T12:02:11Z', 'Europe/Copenhagen')).toBe('14:02:11 CEST');
    expect(dateTime('2026-11-28T23:30:00Z', 'Europe/Copenhagen')).toBe('2026-11-29 00:30:00 CET');
    expect(clockTime('2026-11-28T12:02:11Z', 'UTC')).toBe('12:02:11 UTC');
  });
  it('drop the date for today in the site\'s zone, not in UTC', () => {
    const now = Date.parse('2026-11-28T23:30:00Z'); // already the 29th in Copenhagen
    expect(shortTime('2026-11-28T23:10:00Z', 'Europe/Copenhagen', now)).toBe('00:10:00 CET');
    expect(shortTime('2026-11-28T22:50:00Z', 'Europe/Copenhagen', now)).toBe('2026-11-28 23:50:00 CET');
  });
  it('say an age as an operator would', () => {
    const now = Date.parse('2026-11-28T12:00:00Z');
    expect([20_000, 12 * 60_000, 3 * 3_600_000 + 4 * 60_000, 2 * 3_600_000, 2 * 86_400_000 + 5 * 3_600_000].map((ms) => age(now - ms, now))).toEqual(['just now', '12 min', '3 h 4 min', '2 h', '2 d 5 h']);
  });
});
