// "Not available" values become absent fields, never numbers a rule could trip on.
import { describe, expect, it } from 'vitest';
import { createAisDecoder } from '../../../../ingest/ais/index.ts';
import type { AisDecodeResult } from '../../../../schemas/ais.ts';
import { classA, longRange, message, staticVoyage, textField, type ClassAFields, type Field, type StaticVoyageFields } from './nmea-builder.ts';

const NOW = Date.UTC(2024, 5, 15, 12, 0, 0);

function decodeOne(fields: readonly Field[]): Record<string, unknown> {
  const results: AisDecodeResult[] = createAisDecoder({ source: 'na', now: () => NOW }).push(message(fields));
  expect(results).toHaveLength(1);
  return results[0] as unknown as Record<string, unknown>;
}

const position = (f: ClassAFields) => decodeOne(classA(f));
const voyage = (f: StaticVoyageFields) => decodeOne(staticVoyage(f));

describe('position reports', () => {
  it('drop lat/lon when the position is not available (91/181), but are still emitted', () => {
    const report = position({ lat: 91 * 600000, lon: 181 * 600000 });
    expect(report).toMatchObject({ kind: 'position', mmsi: 244660274, sog: 12.3 });
    expect(report).not.toHaveProperty('lat');
    expect(report).not.toHaveProperty('lon');
  });

  it('drop both coordinates when either is out of range', () => {
    expect(position({ lat: 95 * 600000 })).not.toHaveProperty('lon');
    expect(position({ lon: -185 * 600000 })).not.toHaveProperty('lat');
  });

  it('keep southern and western positions with their sign', () => {
    expect(position({ lat: -33.8568 * 600000, lon: -70.5 * 600000 })).toMatchObject({ lat: -33.8568, lon: -70.5 });
  });

  it('drop SOG 102.3 and keep 102.2 (meaning 102.2 knots or more)', () => {
    expect(position({ sog: 1023 })).not.toHaveProperty('sog');
    expect(position({ sog: 1022 })).toMatchObject({ sog: 102.2 });
  });

  it('drop COG 360 and the unused 360.1-409.5', () => {
    expect(position({ cog: 3600 })).not.toHaveProperty('cog');
    expect(position({ cog: 4095 })).not.toHaveProperty('cog');
    expect(position({ cog: 3599 })).toMatchObject({ cog: 359.9 });
  });

  it('drop heading 511 and the invalid 360-510', () => {
    expect(position({ heading: 511 })).not.toHaveProperty('heading');
    expect(position({ heading: 360 })).not.toHaveProperty('heading');
    expect(position({ heading: 0 })).toMatchObject({ heading: 0 });
  });

  it('drop ROT -128, and keep only the direction for +-127', () => {
    const none = position({ rot: -128 });
    expect(none).not.toHaveProperty('rot');
    expect(none).not.toHaveProperty('rot_raw');
    const fastRight = position({ rot: 127 });
    expect(fastRight).toMatchObject({ rot_raw: 127 });
    expect(fastRight).not.toHaveProperty('rot');
    expect(position({ rot: -31 })).toMatchObject({ rot_raw: -31, rot: -42.9 });
    expect(position({ rot: 0 })).toMatchObject({ rot_raw: 0, rot: 0 });
  });

  it('drop nav status 15 (undefined) and time stamps 60-63', () => {
    const report = position({ status: 15, second: 60 });
    expect(report).not.toHaveProperty('nav_status');
    expect(report).not.toHaveProperty('utc_second');
    expect(position({ second: 63 })).not.toHaveProperty('utc_second');
    expect(position({ status: 14, second: 59 })).toMatchObject({ nav_status: 14, utc_second: 59 });
  });

  it('read type 27 positions in 1/10 minute and drop its own sentinels (SOG 63, COG 511)', () => {
    expect(decodeOne(longRange({ lon: -8021, lat: -30073 }))).toMatchObject({ msg_type: 27, lon: -8021 / 600, lat: -30073 / 600, sog: 12, cog: 180 });
    const na = decodeOne(longRange({ lon: 181 * 600, lat: 91 * 600, sog: 63, cog: 511 }));
    for (const field of ['lat', 'lon', 'sog', 'cog']) expect(na).not.toHaveProperty(field);
  });
});

describe('static and voyage reports', () => {
  it('drop IMO 0, ship type 0, draught 0, all-zero dimensions and @-only text', () => {
    const report = voyage({ imo: 0, shipType: 0, draught: 0, dims: [0, 0, 0, 0], callsign: '@@@@@@@', name: '', destination: '    ' });
    expect(report).toMatchObject({ kind: 'static', msg_type: 5, mmsi: 371255000, epfd: 1 });
    for (const field of ['imo', 'ship_type', 'ship_category', 'draught', 'to_bow', 'length', 'beam', 'callsign', 'name', 'destination']) {
      expect(report).not.toHaveProperty(field);
    }
  });

  it('keep a zero distance when the other dimensions are given', () => {
    expect(voyage({ dims: [0, 15, 0, 5] })).toMatchObject({ to_bow: 0, to_stern: 15, to_port: 0, to_starboard: 5, length: 15, beam: 5 });
  });

  it('drop an ETA with any part not available (month 0, day 0, hour 24, minute 60)', () => {
    for (const eta of [[0, 29, 11, 0], [3, 0, 11, 0], [3, 29, 24, 0], [3, 29, 11, 60], [0, 0, 24, 60]] as const) {
      expect(voyage({ eta })).not.toHaveProperty('eta');
    }
  });

  it('give the ETA the year that puts it closest to the report time', () => {
    expect(voyage({ eta: [7, 1, 6, 30] })).toMatchObject({ eta: '2024-07-01T06:30:00.000Z' });
    expect(voyage({ eta: [1, 2, 0, 0] })).toMatchObject({ eta: '2024-01-02T00:00:00.000Z' });
    expect(voyage({ eta: [2, 30, 0, 0] })).not.toHaveProperty('eta');
  });

  it('map the ship type to a category with its hazard class', () => {
    expect(voyage({ shipType: 82 })).toMatchObject({ ship_type: 82, ship_category: 'tanker', hazardous_category: 'B' });
    expect(voyage({ shipType: 5 })).toMatchObject({ ship_type: 5, ship_category: 'unknown' });
  });

  it('give an auxiliary craft\'s type 24 part B its mother ship instead of dimensions', () => {
    const fields: Field[] = [[24, 6], [0, 2], [981234567, 30], [1, 2], [52, 8], [0, 42], ...textField('TENDER', 7), [244660274, 30], [0, 6]];
    expect(decodeOne(fields)).toMatchObject({ part: 'B', ship_category: 'tug', callsign: 'TENDER', mothership_mmsi: 244660274 });
    expect(decodeOne(fields)).not.toHaveProperty('to_bow');
  });
});

describe('base station reports', () => {
  it('drop a clock with unavailable parts and a position out of range', () => {
    const fields: Field[] = [[4, 6], [0, 2], [2655619, 30], [0, 14], [0, 4], [0, 5], [24, 5], [60, 6], [60, 6], [0, 1], [181 * 600000, 28], [91 * 600000, 27], [0, 4], [0, 10], [0, 1], [0, 19]];
    const report = decodeOne(fields);
    expect(report).toMatchObject({ kind: 'non_vessel', msg_type: 4, mmsi: 2655619 });
    for (const field of ['station_time', 'lat', 'lon', 'epfd']) expect(report).not.toHaveProperty(field);
  });
});
