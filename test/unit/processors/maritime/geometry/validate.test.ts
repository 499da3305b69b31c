import { describe, expect, it } from 'vitest';
import type { Position, ZoneGeometry } from '../../../../../schemas/zone.ts';
import { ZONE_LIMITS } from '../../../../../schemas/zone.ts';
import { validateZoneGeometry } from '../../../../../processors/maritime/geometry/validate.ts';

const square = (lon: number, lat: number, d: number): Position[] => [
  [lon, lat],
  [lon + d, lat],
  [lon + d, lat + d],
  [lon, lat + d],
  [lon, lat],
];
const polygon = (...rings: Position[][]): ZoneGeometry => ({ type: 'Polygon', coordinates: rings });
const reasons = (g: ZoneGeometry, buffer = 0): string => validateZoneGeometry(g, buffer).join(' | ');

describe('validateZoneGeometry', () => {
  it('accepts a polygon with a hole', () => {
    expect(validateZoneGeometry(polygon(square(12.5, 55.6, 0.02), square(12.505, 55.605, 0.005)))).toEqual([]);
  });

  it('reports an unclosed ring', () => {
    expect(reasons(polygon(square(12.5, 55.6, 0.02).slice(0, 4).concat([[12.5, 55.61]])))).toContain('unclosed ring');
  });

  it('reports a ring with fewer than 4 positions', () => {
    expect(reasons(polygon([[12.5, 55.6], [12.6, 55.6], [12.5, 55.6]]))).toContain('ring has fewer than 4 positions');
  });

  it('reports coordinates out of range with their path', () => {
    const ring = square(12.5, 55.6, 0.02);
    ring[2] = [181, 55.62];
    expect(reasons(polygon(ring))).toContain('geometry.coordinates[0][2]: longitude out of range');
    expect(reasons({ type: 'Circle', center: [12, 91], radius_meters: 10 })).toContain('latitude out of range');
  });

  it('reports a self-intersecting ring (bow tie) and where', () => {
    const bowTie: Position[] = [[12.5, 55.6], [12.52, 55.62], [12.52, 55.6], [12.5, 55.62], [12.5, 55.6]];
    expect(reasons(polygon(bowTie))).toMatch(/geometry\.coordinates\[0\]: self-intersection near \(12\.51\d+, 55\.61\d+\)/);
  });

  it('reports a ring that doubles back on itself', () => {
    const spike: Position[] = [[12.5, 55.6], [12.52, 55.6], [12.54, 55.6], [12.53, 55.6], [12.52, 55.62], [12.5, 55.6]];
    expect(reasons(polygon(spike))).toContain('self-intersection');
  });

  it('reports a hole crossing its outer ring, and a hole outside it', () => {
    expect(reasons(polygon(square(12.5, 55.6, 0.02), square(12.51, 55.61, 0.02)))).toContain('rings 0 and 1 intersect');
    expect(reasons(polygon(square(12.5, 55.6, 0.02), square(12.6, 55.6, 0.01)))).toContain('hole is not inside the outer ring');
  });

  it('allows a hole touching its outer ring at one point', () => {
    const hole: Position[] = [[12.5, 55.6], [12.51, 55.605], [12.505, 55.61], [12.5, 55.6]];
    expect(validateZoneGeometry(polygon(square(12.5, 55.6, 0.02), hole))).toEqual([]);
  });

  it('reports overlapping polygons of a multipolygon', () => {
    const g: ZoneGeometry = { type: 'MultiPolygon', coordinates: [[square(12.5, 55.6, 0.02)], [square(12.51, 55.61, 0.02)]] };
    expect(reasons(g)).toContain('polygons 0 and 1 intersect');
    const nested: ZoneGeometry = { type: 'MultiPolygon', coordinates: [[square(12.5, 55.6, 0.02)], [square(12.505, 55.605, 0.005)]] };
    expect(reasons(nested)).toContain('overlap');
  });

  it('accepts a zone across the antimeridian', () => {
    const ring: Position[] = [[179.8, -16.9], [-179.85, -16.95], [-179.8, -16.7], [179.9, -16.6], [179.8, -16.9]];
    expect(validateZoneGeometry(polygon(ring), 500)).toEqual([]);
    expect(validateZoneGeometry({ type: 'Corridor', centerline: [[179.9, 10], [-179.9, 10.1]], width_meters: 100 })).toEqual([]);
  });

  it('reports too many vertices', () => {
    const n = ZONE_LIMITS.maxVertices + 10;
    const ring: Position[] = Array.from({ length: n }, (_, i) => [12.5 + 0.01 * Math.cos((2 * Math.PI * i) / n), 55.6 + 0.01 * Math.sin((2 * Math.PI * i) / n)]);
    ring.push(ring[0] as Position);
    expect(reasons(polygon(ring))).toContain('too many vertices');
  });

  it('reports a zone reaching too far from its centre, buffer included', () => {
    expect(reasons({ type: 'Circle', center: [12, 55], radius_meters: 200_000 }, 50_000)).toBe('');
    expect(reasons(polygon(square(0, 50, 8)))).toContain('zone too large');
  });

  it('reports non-positive radius and width, and a centerline without length', () => {
    expect(reasons({ type: 'Circle', center: [12, 55], radius_meters: 0 })).toContain('radius_meters must be greater than 0');
    expect(reasons({ type: 'Corridor', centerline: [[12, 55], [12.1, 55]], width_meters: -1 })).toContain('width_meters must be greater than 0');
    expect(reasons({ type: 'Corridor', centerline: [[12, 55], [12, 55]], width_meters: 10 })).toContain('zero length');
  });

  it('reports a ring along one great circle (no area)', () => {
    expect(reasons(polygon([[12.5, 55.6], [12.5, 55.7], [12.5, 55.8], [12.5, 55.6]]))).toMatch(/zero area|self-intersection/);
  });

  it('accepts a thin triangle along a parallel: its edges are great circles, not the parallel', () => {
    expect(validateZoneGeometry(polygon([[12.5, 55.6], [12.6, 55.6], [12.7, 55.6], [12.5, 55.6]]))).toEqual([]);
  });
});
