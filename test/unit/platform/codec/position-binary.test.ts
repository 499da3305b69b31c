import { describe, expect, it } from 'vitest';
import { BINARY_MARKER, BinaryFrameError, decodePosition, encodePosition } from '../../../../platform/codec/position-binary.ts';
import type { VesselPosition } from '../../../../schemas/ais.ts';

/** Every field a position report can carry, each with a value that is not its type's zero. */
const full: VesselPosition = {
  kind: 'position', msg_type: 18, mmsi: 1073741823, repeat: 3, source: 'Øresund feed ✓', station: 'rcv-7',
  reported_at: '2026-11-20T10:00:00.123Z', received_at: '2026-11-20T10:00:01+01:00',
  raw: ['\\s:rcv-7,c:1763632800*5C\\!AIVDM,2,1,3,B,55NBjP01mtGIL@CW;SM<D60P5Ld000000000000P0`<3557l0<50@kk@K5h@00000,0*6F', '!AIVDM,2,2,3,B,00000000000,2*25'],
  lat: -89.999999, lon: 179.123456789, sog: 102.2, cog: 359.9, heading: 359, rot: -708.9, rot_raw: -127, nav_status: 14,
  position_accuracy: true, raim: false, utc_second: 59,
};

/** Only the fields every report has: no position, speed, course or flags ("not available" is absent). */
const minimal: VesselPosition = { kind: 'position', msg_type: 1, mmsi: 0, source: 's', reported_at: '2026-11-20T10:00:00Z', received_at: '2026-11-20T10:00:00Z', raw: [''] };

const roundTrip = (v: VesselPosition) => decodePosition(encodePosition(v) as Buffer);
const viaJson = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown;

describe('binary position frame', () => {
  it('round-trips every field of a report exactly, in about half the bytes of its JSON', () => {
    const bytes = encodePosition(full) as Buffer;
    expect(bytes[0]).toBe(BINARY_MARKER);
    expect(bytes[1]).toBe(1);
    expect(decodePosition(bytes)).toStrictEqual(full);
    const typical: VesselPosition = { ...minimal, mmsi: 219000001, raw: ['!AIVDM,1,1,,A,13aEOK?P00PD2wVMdLDRhgvL289?,0*26'], lat: 55.5, lon: 12.4, sog: 5, cog: 90, heading: 90 };
    expect((encodePosition(typical) as Buffer).length).toBeLessThan(0.6 * Buffer.byteLength(JSON.stringify(typical)));
  });

  it('keeps absent fields absent, and the other value of each flag', () => {
    expect(roundTrip(minimal)).toStrictEqual(minimal);
    const flags: VesselPosition = { ...minimal, position_accuracy: false, raim: true, raw: [] };
    expect(roundTrip(flags)).toStrictEqual(flags);
    expect(roundTrip({ ...minimal, heading: 0, rot_raw: 127, rot: 0, sog: 0, nav_status: 0, utc_second: 0, repeat: 0 })).toStrictEqual({ ...minimal, heading: 0, rot_raw: 127, rot: 0, sog: 0, nav_status: 0, utc_second: 0, repeat: 0 });
  });

  it('treats a field set to undefined as absent, and -0 as 0, as JSON text does', () => {
    const sparse = { ...minimal, lat: undefined, lon: undefined, station: undefined, rot: -0 } as unknown as VesselPosition;
    expect(roundTrip(sparse)).toStrictEqual(viaJson(sparse));
    expect(Object.is(roundTrip(sparse).rot, 0)).toBe(true);
  });

  it('leaves to JSON every value it cannot carry exactly: NaN, infinities, null, unknown fields, half a position, wrong types', () => {
    const cannot: Record<string, unknown>[] = [
      { lat: Number.NaN, lon: 12 }, { sog: Number.POSITIVE_INFINITY }, { cog: null }, { heading: 12.5 }, { heading: '90' },
      { lat: 55 }, { lon: 12 }, { extra: 1 }, { repeat: 256 }, { mmsi: -1 }, { mmsi: 2 ** 32 }, { rot_raw: 128 },
      { raim: 1 }, { source: 'lone \ud800 surrogate' }, { raw: 'not a list' }, { raw: [1] }, { kind: 'static' }, { reported_at: 1 },
    ];
    for (const change of cannot) expect(encodePosition({ ...minimal, ...change } as VesselPosition), JSON.stringify(change)).toBeUndefined();
    expect(encodePosition(null as unknown as VesselPosition)).toBeUndefined();
  });

  it('refuses a frame of a version it does not know, naming the version', () => {
    const bytes = encodePosition(full) as Buffer;
    bytes[1] = 2;
    expect(() => decodePosition(bytes)).toThrow(BinaryFrameError);
    expect(() => decodePosition(bytes)).toThrow(/version 2 is not known/);
    try {
      decodePosition(bytes);
    } catch (err) {
      expect((err as BinaryFrameError).reason).toBe('unknown_format_version');
    }
  });

  it('refuses every frame cut short, and one with bytes after its last field', () => {
    const bytes = encodePosition(full) as Buffer;
    for (let length = 0; length < bytes.length; length++) {
      expect(() => decodePosition(bytes.subarray(0, length)), `cut at ${length}`).toThrow(expect.objectContaining({ reason: 'truncated' }));
    }
    expect(() => decodePosition(Buffer.concat([bytes, Buffer.from([0])]))).toThrow(expect.objectContaining({ reason: 'malformed' }));
  });

  it('encodes one value after another without sharing bytes between them', () => {
    const a = encodePosition(full) as Buffer;
    const b = encodePosition(minimal) as Buffer;
    expect(decodePosition(a)).toStrictEqual(full);
    expect(decodePosition(b)).toStrictEqual(minimal);
  });
});
