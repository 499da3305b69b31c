import { describe, expect, it } from 'vitest';
import { WORK_BOUNDED } from '../../../../support/work-bounded.ts';
import { isScheduleInForce, localWeekMinute, parseHours, scheduleProblem } from '../../../../../processors/maritime/rules/schedule.ts';
import type { ZoneSchedule } from '../../../../../schemas/zone.ts';

const at = (iso: string): number => Date.parse(iso);

describe('isScheduleInForce', () => {
  it('treats a zone without a schedule as always in force', () => {
    expect(isScheduleInForce(undefined, at('2024-06-03T10:00:00Z'))).toBe(true);
  });

  it('follows always_on: true is always, false is never', () => {
    expect(isScheduleInForce({ always_on: true }, at('2024-06-03T03:00:00Z'))).toBe(true);
    expect(isScheduleInForce({ always_on: false }, at('2024-06-03T03:00:00Z'))).toBe(false);
  });

  const office: ZoneSchedule = { days: ['mon', 'tue', 'wed', 'thu', 'fri'], hours: '08:00-17:00', timezone: 'Europe/Copenhagen' };

  it('holds within the hours on a listed day, in local time', () => {
    // Monday 2024-06-03; Copenhagen is UTC+2 in June.
    expect(isScheduleInForce(office, at('2024-06-03T05:59:59Z'))).toBe(false);
    expect(isScheduleInForce(office, at('2024-06-03T06:00:00Z'))).toBe(true);
    expect(isScheduleInForce(office, at('2024-06-03T14:59:59Z'))).toBe(true);
  });

  it('treats the end minute as outside the window', () => {
    expect(isScheduleInForce(office, at('2024-06-03T15:00:00Z'))).toBe(false);
  });

  it('does not hold on a day that is not listed', () => {
    expect(isScheduleInForce(office, at('2024-06-08T10:00:00Z'))).toBe(false);
  });

  describe('hours that run past midnight', () => {
    const fridayNight: ZoneSchedule = { days: ['fri'], hours: '22:00-06:00', timezone: 'Europe/Copenhagen' };

    it('holds from the start on the listed day', () => {
      expect(isScheduleInForce(fridayNight, at('2024-06-07T19:59:00Z'))).toBe(false); // Fri 21:59
      expect(isScheduleInForce(fridayNight, at('2024-06-07T20:00:00Z'))).toBe(true); // Fri 22:00
    });

    it('gives the part after midnight to the previous day entry', () => {
      expect(isScheduleInForce(fridayNight, at('2024-06-08T00:00:00Z'))).toBe(true); // Sat 02:00
      expect(isScheduleInForce(fridayNight, at('2024-06-08T03:59:00Z'))).toBe(true); // Sat 05:59
      expect(isScheduleInForce(fridayNight, at('2024-06-08T04:00:00Z'))).toBe(false); // Sat 06:00
    });

    it('does not hold in the small hours of the listed day itself', () => {
      expect(isScheduleInForce(fridayNight, at('2024-06-07T00:00:00Z'))).toBe(false); // Fri 02:00
    });

    it('reads equal start and end as a 24-hour window from the start', () => {
      const allDay: ZoneSchedule = { days: ['mon'], hours: '06:00-06:00', timezone: 'UTC' };
      expect(isScheduleInForce(allDay, at('2024-06-03T05:59:00Z'))).toBe(false);
      expect(isScheduleInForce(allDay, at('2024-06-03T06:00:00Z'))).toBe(true);
      expect(isScheduleInForce(allDay, at('2024-06-04T05:59:00Z'))).toBe(true);
      expect(isScheduleInForce(allDay, at('2024-06-04T06:00:00Z'))).toBe(false);
    });

    it('accepts 24:00 as the end of the day', () => {
      const evening: ZoneSchedule = { days: ['mon'], hours: '18:00-24:00', timezone: 'UTC' };
      expect(isScheduleInForce(evening, at('2024-06-03T23:59:59Z'))).toBe(true);
      expect(isScheduleInForce(evening, at('2024-06-04T00:00:00Z'))).toBe(false);
    });
  });

  describe('daylight saving time', () => {
    const saturdayNight: ZoneSchedule = { days: ['sat'], hours: '22:00-06:00', timezone: 'Europe/Copenhagen' };

    it('shortens a night window to 7 hours when the clocks go forward', () => {
      // 2024-03-31: 02:00 CET becomes 03:00 CEST at 01:00Z.
      expect(isScheduleInForce(saturdayNight, at('2024-03-30T20:59:00Z'))).toBe(false); // 21:59 CET
      expect(isScheduleInForce(saturdayNight, at('2024-03-30T21:00:00Z'))).toBe(true); // 22:00 CET
      expect(isScheduleInForce(saturdayNight, at('2024-03-31T00:59:00Z'))).toBe(true); // 01:59 CET
      expect(isScheduleInForce(saturdayNight, at('2024-03-31T01:00:00Z'))).toBe(true); // 03:00 CEST
      expect(isScheduleInForce(saturdayNight, at('2024-03-31T03:59:00Z'))).toBe(true); // 05:59 CEST
      expect(isScheduleInForce(saturdayNight, at('2024-03-31T04:00:00Z'))).toBe(false); // 06:00 CEST
    });

    it('never holds an hour that the clocks skip', () => {
      const skipped: ZoneSchedule = { days: ['sun'], hours: '02:00-03:00', timezone: 'Europe/Copenhagen' };
      expect(isScheduleInForce(skipped, at('2024-03-31T00:59:00Z'))).toBe(false); // 01:59 CET
      expect(isScheduleInForce(skipped, at('2024-03-31T01:00:00Z'))).toBe(false); // 03:00 CEST
    });

    it('holds a repeated hour both times when the clocks go back', () => {
      // 2024-10-27: 03:00 CEST becomes 02:00 CET at 01:00Z, so 02:00-03:00 local happens twice.
      const repeated: ZoneSchedule = { days: ['sun'], hours: '02:00-03:00', timezone: 'Europe/Copenhagen' };
      expect(isScheduleInForce(repeated, at('2024-10-26T23:59:00Z'))).toBe(false); // 01:59 CEST
      expect(isScheduleInForce(repeated, at('2024-10-27T00:30:00Z'))).toBe(true); // 02:30 CEST
      expect(isScheduleInForce(repeated, at('2024-10-27T01:30:00Z'))).toBe(true); // 02:30 CET
      expect(isScheduleInForce(repeated, at('2024-10-27T02:00:00Z'))).toBe(false); // 03:00 CET
    });
  });

  it('fails open (in force) for a time zone the runtime does not know', () => {
    expect(isScheduleInForce({ days: ['mon'], hours: '08:00-09:00', timezone: 'Mars/Olympus_Mons' }, at('2024-06-04T12:00:00Z'))).toBe(true);
  });
});

describe('localWeekMinute', () => {
  const reference = (timezone: string, ms: number): number => {
    const parts = new Intl.DateTimeFormat('en-GB', { timeZone: timezone, weekday: 'short', hour: 'numeric', minute: 'numeric', hourCycle: 'h23' }).formatToParts(ms);
    const get = (type: string): string => parts.find((part) => part.type === type)?.value ?? '';
    const day = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'].indexOf(get('weekday'));
    return day * 1440 + Number(get('hour')) * 60 + Number(get('minute'));
  };

  it('agrees with Intl at random instants in zones with odd offsets and DST', WORK_BOUNDED, () => {
    const zones = ['Europe/Copenhagen', 'America/St_Johns', 'Asia/Kathmandu', 'Australia/Lord_Howe', 'Pacific/Chatham', 'UTC'];
    let seed = 7;
    const random = (): number => ((seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647);
    const from = Date.parse('2024-01-01T00:00:00Z');
    for (let i = 0; i < 3000; i++) {
      const timezone = zones[i % zones.length] as string;
      const ms = Math.floor(from + random() * 366 * 86_400_000);
      expect(localWeekMinute(timezone, ms), `${timezone} ${new Date(ms).toISOString()}`).toBe(reference(timezone, ms));
    }
  });

  it('is undefined for an unknown time zone', () => {
    expect(localWeekMinute('Nowhere/Special', 0)).toBeUndefined();
  });
});

describe('parseHours and scheduleProblem', () => {
  it('parses HH:MM-HH:MM into minutes of the day', () => {
    expect(parseHours('22:00-06:30')).toEqual({ start: 1320, end: 390 });
    expect(parseHours('00:00-24:00')).toEqual({ start: 0, end: 1440 });
  });

  it('rejects malformed hours', () => {
    expect(parseHours('8:00-17:00')).toBeUndefined();
    expect(parseHours('24:00-01:00')).toBeUndefined();
    expect(parseHours('08:60-17:00')).toBeUndefined();
  });

  it('names the problem with a schedule that cannot be enforced', () => {
    expect(scheduleProblem({ days: ['mon'], hours: '08:00-17:00', timezone: 'Europe/Copenhagen' })).toBeUndefined();
    expect(scheduleProblem({ days: ['mon'], hours: '08:00-17:00', timezone: 'Mars/Base' })).toEqual({ field: 'timezone', message: expect.stringMatching(/timezone "Mars\/Base"/) });
    expect(scheduleProblem({ days: ['mon'], hours: '8-17', timezone: 'UTC' })).toEqual({ field: 'hours', message: expect.stringMatching(/hours "8-17"/) });
    expect(scheduleProblem({ always_on: true })).toBeUndefined();
  });
});
