// Vessel static and voyage data: type 5 (Class A, table 46), the static half of type 19 (table 50) and
// type 24 parts A and B (Class B, table 54). The parts of type 24 are published as they come; merging
// them per MMSI is the job of the compacted static topic's consumer, not of the decoder.
import type { VesselStatic } from '../../schemas/ais.ts';
import { dimensions, draughtTenths, estimatedArrival, nonZero, type Dimensions } from './not-available.ts';
import { newReport, type Envelope, type Results } from './results.ts';
import { describeShipType } from './ship-types.ts';
import type { Payload } from './sixbit.ts';

function newStatic(p: Payload, env: Envelope, msgType: VesselStatic['msg_type']): VesselStatic {
  return newReport<VesselStatic>('static', msgType, p, env);
}

function setText(report: VesselStatic, field: 'name' | 'callsign' | 'destination', value: string | undefined): void {
  if (value !== undefined) report[field] = value;
}

function setShipType(report: VesselStatic, code: number): void {
  const description = describeShipType(code);
  if (description === undefined) return; // 0 = not available
  report.ship_type = code;
  report.ship_category = description.category;
  if (description.hazardous_category !== undefined) report.hazardous_category = description.hazardous_category;
}

/** Dimensions at `bit`: to bow 9, to stern 9, to port 6, to starboard 6 bits. */
function setDimensions(report: VesselStatic, p: Payload, bit: number): void {
  const dims: Dimensions | undefined = dimensions(p.uint(bit, 9), p.uint(bit + 9, 9), p.uint(bit + 18, 6), p.uint(bit + 24, 6));
  if (dims === undefined) return;
  Object.assign(report, dims);
  const length = dims.to_bow + dims.to_stern;
  const beam = dims.to_port + dims.to_starboard;
  if (length > 0) report.length = length;
  if (beam > 0) report.beam = beam;
}

function setEpfd(report: VesselStatic, raw: number): void {
  const epfd = nonZero(raw);
  if (epfd !== undefined) report.epfd = epfd;
}

/** Type 5: 424 bits (420 accepted: the destination then loses its last, padding, character). */
export function decodeStaticVoyage(p: Payload, env: Envelope, out: Results): void {
  const report = newStatic(p, env, 5);
  const imo = nonZero(p.uint(40, 30));
  if (imo !== undefined) report.imo = imo;
  setText(report, 'callsign', p.text(70, 7));
  setText(report, 'name', p.text(112, 20));
  setShipType(report, p.uint(232, 8));
  setDimensions(report, p, 240);
  setEpfd(report, p.uint(270, 4));
  const eta = estimatedArrival(p.uint(274, 4), p.uint(278, 5), p.uint(283, 5), p.uint(288, 6), env.reportedMs);
  if (eta !== undefined) report.eta = eta;
  const draught = draughtTenths(p.uint(294, 8));
  if (draught !== undefined) report.draught = draught;
  setText(report, 'destination', p.text(302, 20));
  out.push(report);
}

/** The static half of type 19 (312 bits); the position half is decoded by position.ts. */
export function decodeExtendedClassBStatic(p: Payload, env: Envelope, out: Results): void {
  const report = newStatic(p, env, 19);
  setText(report, 'name', p.text(143, 20));
  setShipType(report, p.uint(263, 8));
  setDimensions(report, p, 271);
  setEpfd(report, p.uint(301, 4));
  out.push(report);
}

/** MMSI 98MIDxxxx: auxiliary craft of a mother ship (ITU-R M.585); its part B carries the mother's MMSI. */
function isAuxiliaryCraft(mmsi: number): boolean {
  return mmsi >= 980_000_000 && mmsi <= 989_999_999;
}

/** Type 24 part A (160 bits): the name. */
export function decodeClassBStaticA(p: Payload, env: Envelope, out: Results): void {
  const report = newStatic(p, env, 24);
  report.part = 'A';
  setText(report, 'name', p.text(40, 20));
  out.push(report);
}

/** Type 24 part B (168 bits): ship type, vendor id (not kept), call sign, dimensions or mother ship. */
export function decodeClassBStaticB(p: Payload, env: Envelope, out: Results): void {
  const report = newStatic(p, env, 24);
  report.part = 'B';
  setShipType(report, p.uint(40, 8));
  setText(report, 'callsign', p.text(90, 7));
  if (isAuxiliaryCraft(report.mmsi)) {
    const mothership = nonZero(p.uint(132, 30));
    if (mothership !== undefined) report.mothership_mmsi = mothership;
  } else {
    setDimensions(report, p, 132);
  }
  out.push(report);
}
