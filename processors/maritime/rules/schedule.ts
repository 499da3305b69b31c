import { WEEK_DAYS, type ZoneSchedule } from '../../../schemas/zone.ts';

/**
 * Is a zone's schedule in force at an event time (spec "Threat zone": `schedule`)?
 *
 * - No schedule, or `{always_on: true}`: always in force. `{always_on: false}` with nothing else:
 *   never in force (the zone still tracks presence and dwell, but raises no alert).
 * - `{days, hours, timezone}`: local wall-clock time in the IANA zone. When the end is not after
 *   the start (`22:00-06:00`), the window runs past midnight and the part after midnight belongs to
 *   the day on which the window started: `days: ['fri'], hours: '22:00-06:00'` covers Friday 22:00
 *   to Saturday 06:00, and not Friday 00:00-06:00. A start equal to the end is a 24-hour window;
 *   `24:00` is allowed as an end. Minutes are half-open: `08:00-17:00` holds at 16:59:59, not 17:00.
 * - DST: windows follow the wall clock, so a `22:00-06:00` night lasts 7 h when clocks go forward
 *   and 9 h when they go back; local times skipped by the change never occur, repeated ones hold
 *   both times.
 * - A schedule that cannot be read (the API validates on save, so only a zone written around the API)
 *   counts as always in force: monitoring fails open towards alerting, not towards silence.
 */
export function isScheduleInForce(schedule: ZoneSchedule | undefined, at_ms: number): boolean {
  if (schedule === undefined) return true;
  const compiled = compiledSchedule(schedule);
  if (compiled === true || compiled === false) return compiled;
  const week_minute = localWeekMinute(compiled.timezone, at_ms);
  if (week_minute === undefined) return true;
  const day = Math.floor(week_minute / MINUTES_PER_DAY);
  const minute = week_minute - day * MINUTES_PER_DAY;
  const { day_mask, start, end } = compiled;
  if (start < end) return (day_mask & (1 << day)) !== 0 && minute >= start && minute < end;
  const previous_day = (day + 6) % 7;
  return ((day_mask & (1 << day)) !== 0 && minute >= start) || ((day_mask & (1 << previous_day)) !== 0 && minute < end);
}

/** Which field of a schedule cannot be enforced and why, or undefined when it can (for the zone validator's 422). */
export function scheduleProblem(schedule: ZoneSchedule): { field: 'hours' | 'timezone'; message: string } | undefined {
  if ('always_on' in schedule) return undefined;
  if (parseHours(schedule.hours) === undefined) return { field: 'hours', message: `schedule.hours "${schedule.hours}" is not HH:MM-HH:MM` };
  if (formatterFor(schedule.timezone) === undefined) return { field: 'timezone', message: `schedule.timezone "${schedule.timezone}" is not a known IANA time zone` };
  return undefined;
}

/** `HH:MM-HH:MM` as minutes of the day, `24:00` allowed as the end. */
export function parseHours(hours: string): { start: number; end: number } | undefined {
  const match = HOURS.exec(hours);
  if (match === null) return undefined;
  const start = Number(match[1]) * 60 + Number(match[2]);
  const end = Number(match[3]) * 60 + Number(match[4]);
  if (start >= MINUTES_PER_DAY || end > MINUTES_PER_DAY || Number(match[2]) > 59 || Number(match[4]) > 59) return undefined;
  return { start, end };
}

/**
 * Local day of the week and minute of the day, as `day * 1440 + minute` with Monday = 0, or
 * undefined for an unknown time zone. Intl is slow, so each time zone keeps the answers for
 * 15-minute buckets of UTC: every offset in use and every DST change falls on a quarter hour, so
 * within a bucket local time advances exactly with UTC and never crosses midnight.
 */
export function localWeekMinute(timezone: string, at_ms: number): number | undefined {
  const zone = formatterFor(timezone);
  if (zone === undefined) return undefined;
  const bucket = Math.floor(at_ms / BUCKET_MS);
  let at_bucket_start = zone.buckets.get(bucket);
  if (at_bucket_start === undefined) {
    at_bucket_start = weekMinuteFromIntl(zone.format, bucket * BUCKET_MS);
    if (zone.buckets.size >= MAX_BUCKETS_PER_ZONE) zone.buckets.clear();
    zone.buckets.set(bucket, at_bucket_start);
  }
  return at_bucket_start + Math.floor((at_ms - bucket * BUCKET_MS) / 60_000);
}

const MINUTES_PER_DAY = 1440;
const BUCKET_MS = 15 * 60_000;
/** About three months of quarter hours per time zone; replays far apart in time just refill it. */
const MAX_BUCKETS_PER_ZONE = 10_000;
const HOURS = /^(\d{2}):(\d{2})-(\d{2}):(\d{2})$/;
const WEEKDAY_INDEX: Readonly<Record<string, number>> = { Mon: 0, Tue: 1, Wed: 2, Thu: 3, Fri: 4, Sat: 5, Sun: 6 };

interface WeeklySchedule {
  day_mask: number;
  start: number;
  end: number;
  timezone: string;
}

/** true / false for always / never; compiled once per schedule object (zones are refreshed as new objects). */
const compiled_schedules = new WeakMap<object, WeeklySchedule | boolean>();

function compiledSchedule(schedule: ZoneSchedule): WeeklySchedule | boolean {
  let compiled = compiled_schedules.get(schedule);
  if (compiled === undefined) {
    compiled = compileSchedule(schedule);
    compiled_schedules.set(schedule, compiled);
  }
  return compiled;
}

function compileSchedule(schedule: ZoneSchedule): WeeklySchedule | boolean {
  if ('always_on' in schedule) return schedule.always_on;
  const hours = parseHours(schedule.hours);
  if (hours === undefined || formatterFor(schedule.timezone) === undefined) return true;
  let day_mask = 0;
  for (const day of schedule.days) {
    const index = WEEK_DAYS.indexOf(day);
    if (index >= 0) day_mask |= 1 << index;
  }
  return { day_mask, start: hours.start, end: hours.end, timezone: schedule.timezone };
}

interface ZoneClock {
  format: Intl.DateTimeFormat;
  buckets: Map<number, number>;
}

const clocks = new Map<string, ZoneClock | null>();

function formatterFor(timezone: string): ZoneClock | undefined {
  let clock = clocks.get(timezone);
  if (clock === undefined) {
    clock = newClock(timezone);
    clocks.set(timezone, clock);
  }
  return clock ?? undefined;
}

function newClock(timezone: string): ZoneClock | null {
  try {
    const format = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
    });
    return { format, buckets: new Map() };
  } catch {
    return null;
  }
}

function weekMinuteFromIntl(format: Intl.DateTimeFormat, at_ms: number): number {
  let day = 0;
  let hour = 0;
  let minute = 0;
  for (const part of format.formatToParts(at_ms)) {
    if (part.type === 'weekday') day = WEEKDAY_INDEX[part.value] ?? 0;
    else if (part.type === 'hour') hour = Number(part.value) % 24;
    else if (part.type === 'minute') minute = Number(part.value);
  }
  return day * MINUTES_PER_DAY + hour * 60 + minute;
}
