// Reports from things that are not vessels: type 4 base station report (table 48) and type 21 aid to
// navigation report (table 73). They are kept (not skipped) because zone and integrity rules use
// fixed stations and AtoN positions, but they are never mistaken for a vessel position.
import type { NonVesselReport } from '../../schemas/ais.ts';
import { dimensions, latitude, longitude, nonZero, stationTime, utcSecond } from './not-available.ts';
import { newReport, type Envelope, type Results } from './results.ts';
import { nonEmpty, type Payload } from './sixbit.ts';

const PER_DEGREE = 600_000;

function newNonVessel(p: Payload, env: Envelope, msgType: NonVesselReport['msg_type']): NonVesselReport {
  return newReport<NonVesselReport>('non_vessel', msgType, p, env);
}

function setPosition(report: NonVesselReport, rawLon: number, rawLat: number): void {
  const lon = longitude(rawLon, PER_DEGREE);
  const lat = latitude(rawLat, PER_DEGREE);
  if (lat !== undefined && lon !== undefined) {
    report.lat = lat;
    report.lon = lon;
  }
}

function setEpfd(report: NonVesselReport, raw: number): void {
  const epfd = nonZero(raw);
  if (epfd !== undefined) report.epfd = epfd;
}

/** Type 4: 168 bits. Real base stations send broken clocks and positions; those become absent. */
export function decodeBaseStation(p: Payload, env: Envelope, out: Results): void {
  const report = newNonVessel(p, env, 4);
  const time = stationTime(p.uint(38, 14), p.uint(52, 4), p.uint(56, 5), p.uint(61, 5), p.uint(66, 6), p.uint(72, 6));
  if (time !== undefined) report.station_time = time;
  report.position_accuracy = p.bool(78);
  setPosition(report, p.int(79, 28), p.int(107, 27));
  setEpfd(report, p.uint(134, 4));
  report.raim = p.bool(148);
  out.push(report);
}

/** Type 21: 272-360 bits; bits after 272 hold up to 14 more name characters (the name extension). */
export function decodeAidToNavigation(p: Payload, env: Envelope, out: Results): void {
  const report = newNonVessel(p, env, 21);
  const aidType = nonZero(p.uint(38, 5));
  if (aidType !== undefined) report.aid_type = aidType;
  const name = nameWithExtension(p);
  if (name !== undefined) report.name = name;
  report.position_accuracy = p.bool(163);
  setPosition(report, p.int(164, 28), p.int(192, 27));
  const dims = dimensions(p.uint(219, 9), p.uint(228, 9), p.uint(237, 6), p.uint(243, 6));
  if (dims !== undefined) Object.assign(report, dims);
  setEpfd(report, p.uint(249, 4));
  const second = utcSecond(p.uint(253, 6));
  if (second !== undefined) {
    report.utc_second = second;
    report.off_position = p.bool(259); // only meaningful with a valid time stamp (table 73 note)
  }
  report.raim = p.bool(268);
  report.virtual_aid = p.bool(269);
  out.push(report);
}

/** The extension continues a name that fills all 20 characters (no '@' terminator before it). */
function nameWithExtension(p: Payload): string | undefined {
  const name = p.untrimmedText(43, 20);
  if (name.length < 20 || p.bitLength < 278) return nonEmpty(name);
  return nonEmpty(name + p.untrimmedText(272, 14));
}
