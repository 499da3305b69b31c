import { describe, expect, it } from 'vitest';
import { zoneLabelPoint, zonesBounds } from '../../../console/src/geometry.ts';

const zone = (geometry: object) => ({ id: 'z', name: 'Z', type: 'restricted', alert_level: 'high', geometry: geometry as never });

describe('where a zone\'s name goes', () => {
  it('in a circle\'s centre, a corridor\'s middle and a square\'s middle', () => {
    expect(zoneLabelPoint(zone({ type: 'Circle', center: [12.6, 55.7], radius_meters: 300 }))).toEqual([12.6, 55.7]);
    expect(zoneLabelPoint(zone({ type: 'Corridor', centerline: [[12, 55], [12.2, 55.2], [12.4, 55]], width_meters: 100 }))).toEqual([12.2, 55.2]);
    expect(zoneLabelPoint(zone({ type: 'Corridor', centerline: [[12, 55], [12.2, 55.2]], width_meters: 100 }))).toEqual([12.1, 55.1]);
    expect(zoneLabelPoint(zone({ type: 'Polygon', coordinates: [[[0, 0], [2, 0], [2, 2], [0, 2], [0, 0]]] }))).toEqual([1, 1]);
  });
  it('on the polygon when its box\'s middle is outside it (an L-shaped berth)', () => {
    const l = [[0, 0], [4, 0], [4, 1], [1, 1], [1, 4], [0, 4], [0, 0]];
    expect(zoneLabelPoint(zone({ type: 'Polygon', coordinates: [l] }))).toEqual([1, 1]);
  });
});

describe('the box framing the zones', () => {
  it('covers every zone, a circle by its radius; none without zones', () => {
    const b = zonesBounds([zone({ type: 'Polygon', coordinates: [[[12.5, 55.6], [12.6, 55.6], [12.6, 55.7], [12.5, 55.6]]] }), zone({ type: 'Circle', center: [12.8, 55.7], radius_meters: 1000 })]) as number[];
    expect(b[0]).toBe(12.5);
    expect(b[1]).toBe(55.6);
    expect(b[2]).toBeCloseTo(12.8 + 1000 / 111_195 / Math.cos((55.7 * Math.PI) / 180), 4);
    expect(b[3]).toBeCloseTo(55.7 + 1000 / 111_195, 4);
    expect(zonesBounds([])).toBeNull();
  });
});
