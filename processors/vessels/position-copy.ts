// Rows of vessel_positions in PostgreSQL's binary COPY format, so the sink bulk-loads a batch with COPY:
// no SQL text, no array literals to build and parse (the unnest INSERT spent as long serialising and
// parsing its eleven arrays as the server spent storing the rows). Pure: rows in, bytes out.
import type { PositionRow } from './position-rows.ts';

/** The columns, in the order every tuple carries them. */
export const COPY_COLUMNS = ['mmsi', 'reported_at', 'source', 'position', 'sog', 'cog', 'heading', 'nav_status', 'msg_type', 'received_at'] as const;

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
/** Microseconds between the Unix epoch and PostgreSQL's (2000-01-01 UTC). */
const PG_EPOCH_MS = 946_684_800_000;
/** Little-endian EWKB point with an SRID (flag 0x20000000), which geography's binary input accepts. */
const EWKB_POINT_SRID = 0x20000001;
const WGS84 = 4326;
const EWKB_POINT_BYTES = 25;

/** Bytes of one tuple apart from the source's text. */
const FIXED_TUPLE_BYTES = 2 + 10 * 4 + 4 + 8 + EWKB_POINT_BYTES + 4 + 4 + 2 + 2 + 2 + 8;

/** A COPY ... FROM STDIN (FORMAT binary) body holding `rows`, header and trailer included. */
export function positionsCopyBody(rows: readonly PositionRow[]): Buffer {
  const sources = new Map<string, Buffer>();
  let size = SIGNATURE.length + 8 + 2;
  for (const row of rows) {
    let source = sources.get(row.source);
    if (source === undefined) sources.set(row.source, (source = Buffer.from(row.source, 'utf8')));
    size += FIXED_TUPLE_BYTES + source.length;
  }
  const out = Buffer.allocUnsafe(size);
  let at = SIGNATURE.copy(out, 0);
  at = out.writeInt32BE(0, at); // flags: no OIDs
  at = out.writeInt32BE(0, at); // header extension length
  for (const row of rows) {
    at = out.writeInt16BE(COPY_COLUMNS.length, at);
    at = out.writeInt32BE(4, at);
    at = out.writeInt32BE(row.mmsi, at);
    at = timestamp(out, at, row.reportedAt);
    const source = sources.get(row.source)!;
    at = out.writeInt32BE(source.length, at);
    at += source.copy(out, at);
    at = out.writeInt32BE(EWKB_POINT_BYTES, at);
    at = out.writeUInt8(1, at); // little-endian
    at = out.writeUInt32LE(EWKB_POINT_SRID, at);
    at = out.writeUInt32LE(WGS84, at);
    at = out.writeDoubleLE(row.lon, at);
    at = out.writeDoubleLE(row.lat, at);
    at = float4(out, at, row.sog);
    at = float4(out, at, row.cog);
    at = int2(out, at, row.heading);
    at = int2(out, at, row.navStatus);
    at = int2(out, at, row.msgType);
    at = timestamp(out, at, row.receivedAt);
  }
  at = out.writeInt16BE(-1, at);
  // NULL fields are shorter than the space reserved for them.
  return out.subarray(0, at);
}

function timestamp(out: Buffer, at: number, ms: number): number {
  at = out.writeInt32BE(8, at);
  return out.writeBigInt64BE(BigInt(Math.round((ms - PG_EPOCH_MS) * 1000)), at);
}

function float4(out: Buffer, at: number, value: number | null): number {
  if (value === null) return out.writeInt32BE(-1, at);
  at = out.writeInt32BE(4, at);
  return out.writeFloatBE(value, at);
}

function int2(out: Buffer, at: number, value: number | null): number {
  if (value === null) return out.writeInt32BE(-1, at);
  at = out.writeInt32BE(2, at);
  return out.writeInt16BE(value, at);
}
