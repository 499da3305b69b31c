import { cellToParent, latLngToCell } from 'h3-js';
import { describe, expect, it } from 'vitest';
import type { StoredZone, ZoneGeometry } from '../../../../../schemas/zone.ts';
import { cellKey, indexZone, ZoneIndex } from '../../../../../processors/maritime/zones/zone-index.ts';

const stamp = '2025-01-01T00:00:00.000Z';
function zone(id: string, geometry: ZoneGeometry, buffer?: number, enabled = true): StoredZone {
  return {
    id,
    name: id,
    type: 'restricted',
    alert_level: 'high',
    active: true,
    geometry,
    ...(buffer ? { buffer: { enabled, distance_meters: buffer } } : {}),
    created_at: stamp,
    updated_at: stamp,
  };
}

const harbour = zone('harbour', { type: 'Polygon', coordinates: [[[12.58, 55.68], [12.61, 55.68], [12.61, 55.7], [12.58, 55.7], [12.58, 55.68]]] }, 300);
const anchorage = zone('anchorage', { type: 'Circle', center: [12.7, 55.62], radius_meters: 900 }, 500);
const channel = zone('channel', { type: 'Corridor', centerline: [[12.59, 55.66], [12.6, 55.69], [12.62, 55.72]], width_meters: 200 });
const bigArea = zone('kattegat', { type: 'Circle', center: [11, 57], radius_meters: 30_000 });

describe('ZoneIndex', () => {
  const index = ZoneIndex.build([harbour, anchorage, channel, bigArea]);

  it('finds the zones that contain a position, and the buffers that hold it', () => {
    expect(index.locate(55.69, 12.5995)).toEqual({ inside: expect.arrayContaining(['harbour', 'channel']), inBuffer: [] });
    expect(index.locate(55.6785, 12.585)).toEqual({ inside: [], inBuffer: ['harbour'] });
    expect(index.locate(55.62, 12.7)).toEqual({ inside: ['anchorage'], inBuffer: [] });
    expect(index.locate(55.632, 12.7)).toEqual({ inside: [], inBuffer: ['anchorage'] });
    expect(index.locate(55.5, 12.2)).toEqual({ inside: [], inBuffer: [] });
  });

  it('answers inside a large zone from a compacted coarse cell', () => {
    expect(index.locate(57.05, 11.05)).toEqual({ inside: ['kattegat'], inBuffer: [] });
  });

  it('lists as candidates only zones whose cover holds the cell', () => {
    expect(index.candidates(55.62, 12.7)).toEqual(['anchorage']);
    expect(index.candidates(10, 10)).toEqual([]);
  });

  it('ignores a disabled buffer', () => {
    const off = ZoneIndex.build([zone('harbour', harbour.geometry, 300, false)]);
    expect(off.locate(55.6785, 12.585)).toEqual({ inside: [], inBuffer: [] });
  });

  it('leaves out zones with invalid geometry and says why', () => {
    const bad = zone('bad', { type: 'Polygon', coordinates: [[[12, 55], [12.1, 55], [12.1, 55.1], [12, 55.2]]] });
    const built = ZoneIndex.build([harbour, bad]);
    expect(built.zones.has('harbour')).toBe(true);
    expect(built.rejected).toEqual([{ id: 'bad', reasons: [expect.stringContaining('unclosed ring')] }]);
    expect(() => indexZone(bad)).toThrow(/unclosed ring/);
  });

  it('returns nothing for coordinates outside the globe', () => {
    expect(index.locate(91, 0)).toEqual({ inside: [], inBuffer: [] });
    expect(index.locate(Number.NaN, 0)).toEqual({ inside: [], inBuffer: [] });
  });
});

describe('cellKey', () => {
  it('turns the parent relation into a division by a power of 8', () => {
    for (const [lat, lon] of [[55.6, 12.5], [-33.9, 151.2], [78.2, 15.6], [-16.8, 179.99], [0, 0]] as const) {
      const cell = latLngToCell(lat, lon, 9);
      for (let res = 0; res <= 9; res++) expect(cellKey(cellToParent(cell, res), res)).toBe(Math.floor(cellKey(cell, 9) / 8 ** (9 - res)));
    }
  });
});
