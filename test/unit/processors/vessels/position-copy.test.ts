import { describe, expect, it } from 'vitest';
import { COPY_COLUMNS, positionsCopyBody } from '../../../../processors/vessels/position-copy.ts';
import type { PositionRow } from '../../../../processors/vessels/position-rows.ts';

const row: PositionRow = {
  mmsi: 219_000_123, reportedAt: Date.parse('2026-11-25T10:00:00.250Z'), source: 'kystverket-ø', lat: 55.5, lon: -12.25,
  sog: 7.5, cog: null, heading: 511, navStatus: null, msgType: 1, receivedAt: Date.parse('2000-01-01T00:00:01Z'),
};

/** Reads a binary COPY body back into fields (null or the raw bytes), checking its frame. */
function parse(body: Buffer): (Buffer | null)[][] {
  expect(body.subarray(0, 11).toString('latin1')).toBe('PGCOPY\n\xff\r\n\0');
  expect(body.readInt32BE(11)).toBe(0);
  expect(body.readInt32BE(15)).toBe(0);
  let at = 19;
  const tuples: (Buffer | null)[][] = [];
  for (;;) {
    const fields = body.readInt16BE(at);
    at += 2;
    if (fields === -1) break;
    const tuple: (Buffer | null)[] = [];
    for (let i = 0; i < fields; i++) {
      const length = body.readInt32BE(at);
      at += 4;
      tuple.push(length === -1 ? null : body.subarray(at, at + length));
      if (length > 0) at += length;
    }
    tuples.push(tuple);
  }
  expect(at).toBe(body.length);
  return tuples;
}

describe('positionsCopyBody', () => {
  it('frames an empty batch with the signature and the trailer only', () => {
    expect(parse(positionsCopyBody([]))).toEqual([]);
  });

  it('writes each column in its binary form, with NULL for values not available', () => {
    const [tuple] = parse(positionsCopyBody([row]));
    expect(tuple).toHaveLength(COPY_COLUMNS.length);
    const [mmsi, reported, source, position, sog, cog, heading, status, msgType, received] = tuple!;
    expect(mmsi!.readInt32BE(0)).toBe(219_000_123);
    // Microseconds since 2000-01-01 UTC.
    expect(reported!.readBigInt64BE(0)).toBe(BigInt(Date.parse('2026-11-25T10:00:00.250Z') - Date.parse('2000-01-01T00:00:00Z')) * 1000n);
    expect(received!.readBigInt64BE(0)).toBe(1_000_000n);
    expect(source!.toString('utf8')).toBe('kystverket-ø');
    // Little-endian EWKB point with SRID 4326: x is the longitude.
    expect(position!.length).toBe(25);
    expect(position![0]).toBe(1);
    expect(position!.readUInt32LE(1)).toBe(0x20000001);
    expect(position!.readUInt32LE(5)).toBe(4326);
    expect([position!.readDoubleLE(9), position!.readDoubleLE(17)]).toEqual([-12.25, 55.5]);
    expect(sog!.readFloatBE(0)).toBe(7.5);
    expect(cog).toBeNull();
    expect(heading!.readInt16BE(0)).toBe(511);
    expect(status).toBeNull();
    expect(msgType!.readInt16BE(0)).toBe(1);
  });

  it('writes every row of a batch', () => {
    const rows = Array.from({ length: 1_000 }, (_, i) => ({ ...row, mmsi: i, source: i % 2 ? 'a' : 'bb' }));
    expect(parse(positionsCopyBody(rows)).map((t) => t[0]!.readInt32BE(0))).toEqual(rows.map((r) => r.mmsi));
  });
});
