import { describe, expect, it } from 'vitest';
import type { VesselPosition } from '../../../schemas/ais.ts';
import { schemaErrors } from '../ingest/ais/fixtures.ts';

const position: VesselPosition = {
  kind: 'position', msg_type: 1, mmsi: 244660274, source: 'feed', reported_at: '2024-01-15T12:00:00.000Z',
  received_at: '2024-01-15T12:00:01.000Z', raw: ['!AIVDM,1,1,,B,13aDp<PP000IwSlN?Wm@0?wN2<1T,0*29'], lat: 52.85, lon: 5.67,
};

describe('AIS schemas', () => {
  it('accept a minimal position report', () => {
    expect(schemaErrors(position)).toEqual([]);
  });

  it('refuse a latitude without a longitude', () => {
    const { lon: _lon, ...halfPosition } = position;
    expect(schemaErrors(halfPosition)).not.toEqual([]);
  });

  it('refuse sentinel values that the decoder must have removed', () => {
    expect(schemaErrors({ ...position, lat: 91 })).not.toEqual([]);
    expect(schemaErrors({ ...position, sog: 102.3 })).not.toEqual([]);
    expect(schemaErrors({ ...position, cog: 360 })).not.toEqual([]);
    expect(schemaErrors({ ...position, heading: 511 })).not.toEqual([]);
    expect(schemaErrors({ ...position, rot_raw: -128 })).not.toEqual([]);
  });

  it('refuse fields the contract does not define, and times that are not ISO 8601', () => {
    expect(schemaErrors({ ...position, speed: 3 } as VesselPosition)).not.toEqual([]);
    expect(schemaErrors({ ...position, reported_at: 'yesterday' })).not.toEqual([]);
  });

  it('accept a reject record with the dead-letter fields', () => {
    expect(schemaErrors({ kind: 'reject', raw: ['!=IVDM'], source: 'feed', reason: 'bad_talker', detail: 'talker "=I"', at: '2024-01-15T12:00:00.000Z' })).toEqual([]);
  });
});
