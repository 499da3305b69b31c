// NMEA 0183 / IEC 61162-1 encapsulation sentences carrying AIS: `!ccVDM` (received from others) and
// `!ccVDO` (own ship), fields: fragment count, fragment number, sequence id, channel, payload, fill
// bits, then `*hh` (XOR of everything between `!` and `*`). Some receivers append their own fields
// after the checksum (USCG N-AIS: `,d-109,S2105,...,r003669946,1325394060`; exactEarth: `,<epoch ms>`).
import type { AisRejectReason } from '../../schemas/ais.ts';

export interface ParseFailure {
  readonly failed: true;
  readonly reason: AisRejectReason;
  readonly detail: string;
}

export function fail(reason: AisRejectReason, detail: string): ParseFailure {
  return { failed: true, reason, detail };
}

export interface VdmSentence {
  readonly failed: false;
  /** Talker + formatter, e.g. "AIVDM": fragments of one message share it. */
  readonly header: string;
  readonly total: number;
  readonly number: number;
  readonly sequence: string;
  readonly channel: string;
  readonly payloadStart: number;
  readonly payloadEnd: number;
  readonly fillBits: number;
  /** First epoch-looking field after the checksum, in ms. */
  readonly trailingEpochMs: number | undefined;
}

/** Marker for `!` sentences that are not VDM/VDO (e.g. `!AIPWR`): valid NMEA, not AIS data. */
export const NOT_AIS = Symbol('not_ais');

const HEX = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) HEX[48 + i] = i;
for (let i = 0; i < 6; i++) {
  HEX[65 + i] = 10 + i;
  HEX[97 + i] = 10 + i;
}

/** Byte value of two hex digits at text[at], or -1. */
export function readHexByte(text: string, at: number): number {
  if (at + 2 > text.length) return -1;
  const hi = text.charCodeAt(at);
  const lo = text.charCodeAt(at + 1);
  const h = hi < 128 ? (HEX[hi] as number) : -1;
  const l = lo < 128 ? (HEX[lo] as number) : -1;
  return h < 0 || l < 0 ? -1 : h * 16 + l;
}

export function xorChecksum(text: string, start: number, end: number): number {
  let sum = 0;
  for (let i = start; i < end; i++) sum ^= text.charCodeAt(i);
  return sum & 0xff;
}

export function hex2(value: number): string {
  return value.toString(16).toUpperCase().padStart(2, '0');
}

/** Epoch seconds (NMEA 4.0 `c:`) or milliseconds (many loggers) to ms; below 1e11 is taken as seconds. */
export function epochToMs(value: number): number {
  return value < 1e11 ? value * 1000 : value;
}

const MAX_DATE_MS = 8.64e15;

/** Parses text[start, end) as an epoch: digits (at least 9), optionally ".fraction". */
export function parseEpoch(text: string, start: number, end: number): number | undefined {
  let digits = 0;
  let i = start;
  for (; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) break;
    digits++;
  }
  if (digits < 9) return undefined;
  if (i < end) {
    if (text.charCodeAt(i) !== 46) return undefined;
    for (let j = i + 1; j < end; j++) {
      const c = text.charCodeAt(j);
      if (c < 48 || c > 57) return undefined;
    }
  }
  const ms = epochToMs(Number(text.slice(start, end)));
  return Number.isFinite(ms) && ms <= MAX_DATE_MS ? ms : undefined;
}

function parseTrailingEpoch(line: string, from: number): number | undefined {
  let at = from;
  while (at < line.length) {
    const next = line.indexOf(',', at + 1);
    const end = next === -1 ? line.length : next;
    const ms = parseEpoch(line, at + 1, end);
    if (ms !== undefined) return ms;
    at = end;
  }
  return undefined;
}

function isUpper(c: number): boolean {
  return c >= 65 && c <= 90;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * Parses the sentence that starts with `!` at line[start]. Talkers are two capital letters (AI, AB,
 * BS, SA, ...) or "--" (the NMEA "no particular talker" placeholder, used by Gatehouse for its own
 * base stations); anything else, such as `!=IVDM`, is a corrupted talker.
 */
export function parseVdm(line: string, start: number): VdmSentence | ParseFailure | typeof NOT_AIS {
  if (line.length < start + 7 || line.charCodeAt(start + 3) !== 86 /* V */ || line.charCodeAt(start + 4) !== 68 /* D */) return NOT_AIS;
  const f = line.charCodeAt(start + 5);
  if ((f !== 77 /* M */ && f !== 79) /* O */ || line.charCodeAt(start + 6) !== 44 /* , */) return NOT_AIS;
  const t1 = line.charCodeAt(start + 1);
  const t2 = line.charCodeAt(start + 2);
  if (!((isUpper(t1) && isUpper(t2)) || (t1 === 45 && t2 === 45))) {
    return fail('bad_talker', `talker "${line.slice(start + 1, start + 3)}" is not two capital letters`);
  }
  const star = line.indexOf('*', start + 7);
  if (star === -1) return fail('malformed_sentence', 'no checksum (sentence truncated?)');
  const given = readHexByte(line, star + 1);
  if (given < 0) return fail('malformed_sentence', 'checksum is not two hex digits');
  const computed = xorChecksum(line, start + 1, star);
  if (given !== computed) return fail('bad_checksum', `checksum ${hex2(given)} given, ${hex2(computed)} computed`);
  // Text after the checksum is outside it: receiver fields (`,...`) are read for a time stamp, and
  // anything else (e.g. a literal "\x0d\x0a" written by a logger) is ignored, as gpsd does.
  return parseVdmFields(line, start, star, star + 3);
}

function parseVdmFields(line: string, start: number, star: number, after: number): VdmSentence | ParseFailure {
  const c1 = start + 6;
  const c2 = line.indexOf(',', c1 + 1);
  const c3 = c2 < 0 ? -1 : line.indexOf(',', c2 + 1);
  const c4 = c3 < 0 ? -1 : line.indexOf(',', c3 + 1);
  const c5 = c4 < 0 ? -1 : line.indexOf(',', c4 + 1);
  const c6 = c5 < 0 ? -1 : line.indexOf(',', c5 + 1);
  if (c6 < 0 || c6 > star) return fail('malformed_sentence', 'fewer than 7 fields');
  const extra = line.indexOf(',', c6 + 1);
  if (extra !== -1 && extra < star) return fail('malformed_sentence', 'more than 7 fields');
  const total = line.charCodeAt(c1 + 1) - 48;
  const number = line.charCodeAt(c2 + 1) - 48;
  if (c2 !== c1 + 2 || total < 1 || total > 9) return fail('malformed_sentence', 'fragment count is not 1-9');
  if (c3 !== c2 + 2 || number < 1 || number > total) return fail('malformed_sentence', 'fragment number is not 1..count');
  if (c4 - c3 > 2 || (c4 === c3 + 2 && !isDigit(line.charCodeAt(c3 + 1)))) return fail('malformed_sentence', 'sequence id is not a digit');
  if (c5 - c4 > 3) return fail('malformed_sentence', 'channel is longer than 2 characters');
  let fillBits = 0;
  if (star === c6 + 2) fillBits = line.charCodeAt(c6 + 1) - 48;
  else if (star !== c6 + 1) fillBits = -1;
  if (fillBits < 0 || fillBits > 5) return fail('malformed_sentence', 'fill bits are not 0-5');
  return {
    failed: false,
    header: line.slice(start + 1, start + 6),
    total,
    number,
    sequence: line.slice(c3 + 1, c4),
    channel: line.slice(c4 + 1, c5),
    payloadStart: c5 + 1,
    payloadEnd: c6,
    fillBits,
    trailingEpochMs: line.charCodeAt(after) === 44 ? parseTrailingEpoch(line, after) : undefined,
  };
}
