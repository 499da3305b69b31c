// "Not available" and out-of-range values (ITU-R M.1371-5 Annex 8, tables 45-51) become undefined, so
// a rule can never mistake a sentinel such as lat 91 or SOG 102.3 for a real reading. Each function
// takes the raw integer from the payload and returns the value in the unit the schemas use.

/** Latitude in 1/10000 minute (types 1-4, 18, 19, 21) or 1/10 minute (type 27, divisor 600). */
export function latitude(raw: number, perDegree: number): number | undefined {
  const deg = raw / perDegree;
  return deg >= -90 && deg <= 90 ? deg : undefined; // 91 = not available
}

export function longitude(raw: number, perDegree: number): number | undefined {
  const deg = raw / perDegree;
  return deg >= -180 && deg <= 180 ? deg : undefined; // 181 = not available
}

/** SOG in 1/10 knot; 1023 = not available, 1022 = 102.2 knots or more. */
export function speedTenths(raw: number): number | undefined {
  return raw <= 1022 ? raw / 10 : undefined;
}

/** COG in 1/10 degree; 3600 = not available, 3601-4095 must not be used. */
export function courseTenths(raw: number): number | undefined {
  return raw < 3600 ? raw / 10 : undefined;
}

/** True heading 0-359; 511 = not available. Type 27 course uses the same rule (511 = n/a). */
export function wholeDegrees(raw: number): number | undefined {
  return raw < 360 ? raw : undefined;
}

/** Type 27 SOG in whole knots; 63 = not available. */
export function longRangeSpeed(raw: number): number | undefined {
  return raw < 63 ? raw : undefined;
}

/** ROT_AIS: -128 = not available (the only value dropped entirely). */
export function rotRaw(raw: number): number | undefined {
  return raw === -128 ? undefined : raw;
}

/**
 * Rate of turn in degrees per minute: ROT_AIS = 4.733 * sqrt(ROT_sensor), so ROT = (ROT_AIS / 4.733)^2
 * with the sign kept. +-127 means "turning faster than 5 degrees per 30 s, no rate available".
 */
export function rateOfTurn(raw: number): number | undefined {
  if (raw < -126 || raw > 126) return undefined;
  const rate = (raw / 4.733) ** 2;
  return Math.round((raw < 0 ? -rate : rate) * 10) / 10;
}

/** Navigational status 0-14; 15 = undefined (default). */
export function navStatus(raw: number): number | undefined {
  return raw < 15 ? raw : undefined;
}

/** UTC second of the fix 0-59; 60 = not available, 61-63 = manual, dead reckoning, inoperative. */
export function utcSecond(raw: number): number | undefined {
  return raw < 60 ? raw : undefined;
}

/** Codes where 0 means "not available" (IMO number, ship type, EPFD, aid type, draught). */
export function nonZero(raw: number): number | undefined {
  return raw === 0 ? undefined : raw;
}

/** Draught in 1/10 m; 0 = not available, 255 = 25.5 m or more. */
export function draughtTenths(raw: number): number | undefined {
  return raw === 0 ? undefined : raw / 10;
}

export interface Dimensions {
  to_bow: number;
  to_stern: number;
  to_port: number;
  to_starboard: number;
}

/** All four zero means "reference point not available"; otherwise zeros are real (antenna at the bow). */
export function dimensions(toBow: number, toStern: number, toPort: number, toStarboard: number): Dimensions | undefined {
  if (toBow === 0 && toStern === 0 && toPort === 0 && toStarboard === 0) return undefined;
  return { to_bow: toBow, to_stern: toStern, to_port: toPort, to_starboard: toStarboard };
}

const DAY_MS = 86_400_000;

/**
 * ETA (type 5) as an ISO time. Month 0, day 0, hour 24 or minute 60 mean "not available"; an ETA
 * without all four parts is absent. AIS sends no year: the year chosen is the one that puts the ETA
 * closest to the report time (stale ETAs from a previous voyage stay in the past).
 */
export function estimatedArrival(month: number, day: number, hour: number, minute: number, reportedMs: number): string | undefined {
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59) return undefined;
  const year = new Date(reportedMs).getUTCFullYear();
  let best: number | undefined;
  for (const candidate of [year - 1, year, year + 1]) {
    const ms = Date.UTC(candidate, month - 1, day, hour, minute);
    const valid = new Date(ms).getUTCDate() === day;
    if (valid && (best === undefined || Math.abs(ms - reportedMs) < Math.abs(best - reportedMs))) best = ms;
  }
  return best === undefined || Math.abs(best - reportedMs) > 400 * DAY_MS ? undefined : new Date(best).toISOString();
}

/** Type 4 base station clock; year 0, month 0, day 0, hour 24, minute 60, second 60 = not available. */
export function stationTime(year: number, month: number, day: number, hour: number, minute: number, second: number): string | undefined {
  if (year < 1 || year > 9999 || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return undefined;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  return date.getUTCDate() === day ? date.toISOString() : undefined;
}
