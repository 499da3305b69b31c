// Vessel position reports: types 1, 2, 3 (Class A), 18 and 19 (Class B) and 27 (long-range, satellite).
// Bit layouts: ITU-R M.1371-5 Annex 8, tables 45 (1-3), 49 (18), 50 (19) and 52 (27).
// A report whose position is not available is still emitted, without lat/lon: the vessel is
// transmitting (AIS-loss rules need that) and its speed, heading or status may be valid.
import type { VesselPosition } from '../../schemas/ais.ts';
import {
  courseTenths, latitude, longRangeSpeed, longitude, navStatus, rateOfTurn, rotRaw, speedTenths, utcSecond, wholeDegrees,
} from './not-available.ts';
import { newReport, type Envelope, type Results } from './results.ts';
import type { Payload } from './sixbit.ts';

const TENTH_MINUTES_PER_DEGREE = 600_000; // 1/10000 minute
const LONG_RANGE_PER_DEGREE = 600; // type 27: 1/10 minute

function newPosition(p: Payload, env: Envelope, msgType: VesselPosition['msg_type']): VesselPosition {
  return newReport<VesselPosition>('position', msgType, p, env);
}

function setPosition(report: { lat?: number; lon?: number }, rawLon: number, rawLat: number, perDegree: number): void {
  const lon = longitude(rawLon, perDegree);
  const lat = latitude(rawLat, perDegree);
  if (lat !== undefined && lon !== undefined) {
    report.lat = lat;
    report.lon = lon;
  }
}

function setMotion(report: VesselPosition, sog: number | undefined, cog: number | undefined, heading: number | undefined): void {
  if (sog !== undefined) report.sog = sog;
  if (cog !== undefined) report.cog = cog;
  if (heading !== undefined) report.heading = heading;
}

/** Types 1, 2, 3. */
export function decodeClassAPosition(p: Payload, env: Envelope, msgType: 1 | 2 | 3, out: Results): void {
  const report = newPosition(p, env, msgType);
  const status = navStatus(p.uint(38, 4));
  if (status !== undefined) report.nav_status = status;
  const rot = p.int(42, 8);
  const raw = rotRaw(rot);
  if (raw !== undefined) report.rot_raw = raw;
  const rate = rateOfTurn(rot);
  if (rate !== undefined) report.rot = rate;
  setMotion(report, speedTenths(p.uint(50, 10)), courseTenths(p.uint(116, 12)), wholeDegrees(p.uint(128, 9)));
  report.position_accuracy = p.bool(60);
  setPosition(report, p.int(61, 28), p.int(89, 27), TENTH_MINUTES_PER_DEGREE);
  const second = utcSecond(p.uint(137, 6));
  if (second !== undefined) report.utc_second = second;
  report.raim = p.bool(148);
  out.push(report);
}

/** Types 18 and 19 share bits 0-138 (SOG to time stamp); RAIM sits at 147 (18) or 305 (19). */
export function decodeClassBPosition(p: Payload, env: Envelope, msgType: 18 | 19, out: Results): void {
  const report = newPosition(p, env, msgType);
  setMotion(report, speedTenths(p.uint(46, 10)), courseTenths(p.uint(112, 12)), wholeDegrees(p.uint(124, 9)));
  report.position_accuracy = p.bool(56);
  setPosition(report, p.int(57, 28), p.int(85, 27), TENTH_MINUTES_PER_DEGREE);
  const second = utcSecond(p.uint(133, 6));
  if (second !== undefined) report.utc_second = second;
  report.raim = p.bool(msgType === 18 ? 147 : 305);
  out.push(report);
}

/** Type 27: positions in 1/10 minute, SOG in knots (63 = n/a), COG in degrees (511 = n/a). */
export function decodeLongRangePosition(p: Payload, env: Envelope, out: Results): void {
  const report = newPosition(p, env, 27);
  report.position_accuracy = p.bool(38);
  report.raim = p.bool(39);
  const status = navStatus(p.uint(40, 4));
  if (status !== undefined) report.nav_status = status;
  setPosition(report, p.int(44, 18), p.int(62, 17), LONG_RANGE_PER_DEGREE);
  setMotion(report, longRangeSpeed(p.uint(79, 6)), wholeDegrees(p.uint(85, 9)), undefined);
  out.push(report);
}
