// The compact binary form of an ais.positions value (a VesselPosition): about half the bytes of its JSON,
// and decoded 2-2.5 times faster than JSON.parse reads the JSON (docs/benchmarks.md "Position format").
//
// Frame: byte 0 is BINARY_MARKER (1; JSON text never starts with it, the Confluent wire format starts with
// 0), byte 1 the format version. Version 1, after the two frame bytes:
//   u16 presence flags (FLAG_* below), u8 msg_type, u32 mmsi, [u8 repeat], str source, [str station],
//   str reported_at, str received_at, u16 count + str per raw line, [f64 lat, f64 lon], [f64 sog], [f64 cog],
//   [u16 heading], [f64 rot], [i8 rot_raw], [u8 nav_status], [u8 utc_second]
// where str is a u16 byte length and UTF-8, every number little-endian, [..] present only with its flag;
// position_accuracy and raim are two flags each (present, value). A new field or encoding is a new version:
// readers keep every version they ever read, so a topic written by an older instance stays readable.
//
// encodePosition writes this form only when it carries the value exactly as JSON would; anything else
// (a field the schema does not know, a number that is not finite, a time string longer than a frame holds...)
// is left to JSON, which every reader also accepts.
import type { VesselPosition } from '../../schemas/ais.ts';

export const BINARY_MARKER = 1;
const VERSION = 1;

const FLAG_REPEAT = 1 << 0;
const FLAG_STATION = 1 << 1;
const FLAG_LAT_LON = 1 << 2;
const FLAG_SOG = 1 << 3;
const FLAG_COG = 1 << 4;
const FLAG_HEADING = 1 << 5;
const FLAG_ROT = 1 << 6;
const FLAG_ROT_RAW = 1 << 7;
const FLAG_NAV_STATUS = 1 << 8;
const FLAG_ACCURACY = 1 << 9;
const FLAG_ACCURATE = 1 << 10;
const FLAG_RAIM = 1 << 11;
const FLAG_RAIM_ON = 1 << 12;
const FLAG_UTC_SECOND = 1 << 13;

/** Why a binary frame could not be read. */
export class BinaryFrameError extends Error {
  constructor(
    readonly reason: 'unknown_format_version' | 'truncated' | 'malformed',
    message: string,
  ) {
    super(message);
    this.name = 'BinaryFrameError';
  }
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Thrown inside the encoder when a value is JSON's to carry; never leaves this module. */
class NotRepresentable extends Error {}
const NOT_REPRESENTABLE = new NotRepresentable();

/**
 * Writes one value into a scratch buffer (the encoder is synchronous, so one per thread is enough), checking
 * each field as it goes; the frame is then copied out at its exact size.
 */
class Writer {
  readonly scratch = Buffer.allocUnsafe(64 * 1024);
  at = 0;
  flags = 0;
  /** Fields written; a value with more defined fields has one version 1 does not know. */
  fields = 0;

  reset(): void {
    this.at = 4;
    this.flags = 0;
    this.fields = 0;
  }

  /** Whether an optional field is present; if so its flag is set and it counts as written. */
  has<T>(value: T | undefined, flag: number): value is T {
    if (value === undefined) return false;
    this.flags |= flag;
    this.fields++;
    return true;
  }

  uint(n: unknown, bytes: 1 | 2 | 4): void {
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n >= 2 ** (8 * bytes)) throw NOT_REPRESENTABLE;
    this.at = this.scratch.writeUIntLE(n, this.at, bytes);
  }

  int8(n: unknown): void {
    if (typeof n !== 'number' || !Number.isInteger(n) || n < -128 || n > 127) throw NOT_REPRESENTABLE;
    this.at = this.scratch.writeInt8(n, this.at);
  }

  /** +0 turns -0 into 0, as JSON text does; NaN and infinities are not JSON numbers at all. */
  float(n: unknown): void {
    if (typeof n !== 'number' || !Number.isFinite(n)) throw NOT_REPRESENTABLE;
    this.at = this.scratch.writeDoubleLE(n + 0, this.at);
  }

  /** The value of a boolean field, as a flag. */
  bit(on: unknown, flag: number): void {
    if (typeof on !== 'boolean') throw NOT_REPRESENTABLE;
    if (on) this.flags |= flag;
  }

  string(s: unknown): void {
    // Three bytes of UTF-8 at most per UTF-16 unit: what fits the scratch space fits the u16 length too.
    if (typeof s !== 'string' || this.at + 2 + 3 * s.length > this.scratch.length) throw NOT_REPRESENTABLE;
    const length = this.scratch.write(s, this.at + 2, 'utf8');
    // Not ASCII: a lone surrogate would become U+FFFD in UTF-8, where JSON text keeps it escaped.
    if (length !== s.length && LONE_SURROGATE.test(s)) throw NOT_REPRESENTABLE;
    this.scratch.writeUInt16LE(length, this.at);
    this.at += 2 + length;
  }

  lines(raw: unknown): void {
    if (!Array.isArray(raw)) throw NOT_REPRESENTABLE;
    this.uint(raw.length, 2);
    for (const line of raw) this.string(line);
  }

  frame(): Buffer {
    this.scratch[0] = BINARY_MARKER;
    this.scratch[1] = VERSION;
    this.scratch.writeUInt16LE(this.flags, 2);
    return Buffer.from(this.scratch.subarray(0, this.at));
  }
}

const writer = new Writer();

/** The binary frame of `value`, or undefined when only JSON carries it exactly. */
export function encodePosition(value: VesselPosition): Buffer | undefined {
  if (value === null || typeof value !== 'object' || value.kind !== 'position') return undefined;
  try {
    writeFields(writer, value);
    // Every defined field was one of those: a value with another is JSON's to carry.
    return writer.fields === definedFields(value) ? writer.frame() : undefined;
  } catch (err) {
    if (err === NOT_REPRESENTABLE) return undefined;
    throw err;
  }
}

/** Version 1's fields in order (see the top of this file). */
function writeFields(w: Writer, v: VesselPosition): void {
  w.reset();
  w.fields = 7; // kind, msg_type, mmsi, source, reported_at, received_at, raw
  w.uint(v.msg_type, 1);
  w.uint(v.mmsi, 4);
  if (w.has(v.repeat, FLAG_REPEAT)) w.uint(v.repeat, 1);
  w.string(v.source);
  if (w.has(v.station, FLAG_STATION)) w.string(v.station);
  w.string(v.reported_at);
  w.string(v.received_at);
  w.lines(v.raw);
  if (w.has(v.lat, FLAG_LAT_LON)) {
    w.float(v.lat);
    w.float(v.lon); // schema: lat and lon together; without lon this throws
    w.fields++;
  }
  if (w.has(v.sog, FLAG_SOG)) w.float(v.sog);
  if (w.has(v.cog, FLAG_COG)) w.float(v.cog);
  if (w.has(v.heading, FLAG_HEADING)) w.uint(v.heading, 2);
  if (w.has(v.rot, FLAG_ROT)) w.float(v.rot);
  if (w.has(v.rot_raw, FLAG_ROT_RAW)) w.int8(v.rot_raw);
  if (w.has(v.nav_status, FLAG_NAV_STATUS)) w.uint(v.nav_status, 1);
  if (w.has(v.position_accuracy, FLAG_ACCURACY)) w.bit(v.position_accuracy, FLAG_ACCURATE);
  if (w.has(v.raim, FLAG_RAIM)) w.bit(v.raim, FLAG_RAIM_ON);
  if (w.has(v.utc_second, FLAG_UTC_SECOND)) w.uint(v.utc_second, 1);
}

/** Fields set to undefined are absent, as in JSON text. */
function definedFields(value: object): number {
  let defined = 0;
  for (const key in value) if ((value as Record<string, unknown>)[key] !== undefined) defined++;
  return defined;
}

/** Reads a binary frame (its first byte is BINARY_MARKER); throws a BinaryFrameError. */
export function decodePosition(bytes: Buffer): VesselPosition {
  if (bytes.length < 2) throw new BinaryFrameError('truncated', `${bytes.length} byte(s), shorter than the binary frame's 2-byte header`);
  if (bytes[1] !== VERSION) throw new BinaryFrameError('unknown_format_version', `binary position format version ${bytes[1]} is not known to this instance (it reads version ${VERSION}); a newer instance wrote it`);
  try {
    return new Reader(bytes).position();
  } catch (err) {
    if (err instanceof RangeError) throw new BinaryFrameError('truncated', `binary position frame of ${bytes.length} bytes ends early`);
    throw err;
  }
}

class Reader {
  o = 4;
  constructor(private readonly b: Buffer) {}

  position(): VesselPosition {
    const b = this.b;
    const flags = b.readUInt16LE(2);
    const msgType = b.readUInt8(this.o);
    const mmsi = b.readUInt32LE(this.o + 1);
    this.o += 5;
    const v: Record<string, unknown> = { kind: 'position', msg_type: msgType, mmsi };
    if (flags & FLAG_REPEAT) v.repeat = b.readUInt8(this.o++);
    v.source = this.string();
    if (flags & FLAG_STATION) v.station = this.string();
    v.reported_at = this.string();
    v.received_at = this.string();
    v.raw = this.raw();
    if (flags & FLAG_LAT_LON) {
      v.lat = this.float();
      v.lon = this.float();
    }
    if (flags & FLAG_SOG) v.sog = this.float();
    if (flags & FLAG_COG) v.cog = this.float();
    if (flags & FLAG_HEADING) {
      v.heading = b.readUInt16LE(this.o);
      this.o += 2;
    }
    if (flags & FLAG_ROT) v.rot = this.float();
    if (flags & FLAG_ROT_RAW) v.rot_raw = b.readInt8(this.o++);
    if (flags & FLAG_NAV_STATUS) v.nav_status = b.readUInt8(this.o++);
    if (flags & FLAG_ACCURACY) v.position_accuracy = (flags & FLAG_ACCURATE) !== 0;
    if (flags & FLAG_RAIM) v.raim = (flags & FLAG_RAIM_ON) !== 0;
    if (flags & FLAG_UTC_SECOND) v.utc_second = b.readUInt8(this.o++);
    if (this.o !== b.length) throw new BinaryFrameError('malformed', `binary position frame of ${b.length} bytes has ${b.length - this.o} byte(s) after its last field`);
    return v as VesselPosition;
  }

  float(): number {
    const n = this.b.readDoubleLE(this.o);
    this.o += 8;
    return n;
  }

  string(): string {
    const length = this.b.readUInt16LE(this.o);
    const start = this.o + 2;
    this.o = start + length;
    if (this.o > this.b.length) throw new RangeError('string past the end');
    return this.b.toString('utf8', start, this.o);
  }

  raw(): string[] {
    const count = this.b.readUInt16LE(this.o);
    this.o += 2;
    const lines: string[] = [];
    for (let i = 0; i < count; i++) lines.push(this.string());
    return lines;
  }
}
