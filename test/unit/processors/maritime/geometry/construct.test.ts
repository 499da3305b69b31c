import { describe, expect, it } from 'vitest';
import { WORK_BOUNDED } from '../../../../support/work-bounded.ts';
import type { Position, ZoneGeometry } from '../../../../../schemas/zone.ts';
import { circleRing, storedShapeOf, SHAPE_TOLERANCE_M } from '../../../../../processors/maritime/geometry/construct.ts';
import { compileZoneShape, INSIDE, OUTSIDE } from '../../../../../processors/maritime/geometry/zone-shape.ts';
import { validateZoneGeometry } from '../../../../../processors/maritime/geometry/validate.ts';
import { latLonOf, normalize, spheroidDistance, unitVector } from '../../../../../processors/maritime/geometry/sphere.ts';

function seeded(seed: number): () => number {
  let s = seed;
  return () => ((s = (s * 16807) % 2147483647) - 1) / 2147483646;
}

/** Random points around a zone whose exact answer is at least `margin` metres from the edge
 * agree with the stored polygon's answer. */
function agreement(geometry: ZoneGeometry, margin: number): { inside: number; outside: number; disagree: number } {
  const exact = compileZoneShape(geometry);
  const stored = compileZoneShape(storedShapeOf(geometry) as ZoneGeometry);
  const shrunk = geometry.type === 'Circle' ? { ...geometry, radius_meters: geometry.radius_meters - margin } : geometry.type === 'Corridor' ? { ...geometry, width_meters: geometry.width_meters - 2 * margin } : geometry;
  const inner = compileZoneShape(shrunk);
  const [clat, clon] = latLonOf(exact.centre);
  const span = (exact.angularRadius * 1.2 * 180) / Math.PI;
  const random = seeded(3);
  const out = { inside: 0, outside: 0, disagree: 0 };
  for (let i = 0; i < 20_000; i++) {
    const lat = clat + (random() * 2 - 1) * span;
    const lon = clon + ((random() * 2 - 1) * span) / Math.cos((clat * Math.PI) / 180);
    const isInside = exact.place(lat, lon, 0) === INSIDE;
    const nearEdge = isInside ? inner.place(lat, lon, 0) !== INSIDE : exact.place(lat, lon, margin) !== OUTSIDE;
    if (nearEdge) continue;
    if (isInside) out.inside++;
    else out.outside++;
    if ((stored.place(lat, lon, 0) === INSIDE) !== isInside) out.disagree++;
  }
  return out;
}

describe('storedShapeOf', () => {
  it('keeps polygons and multipolygons as given', () => {
    const g: ZoneGeometry = { type: 'Polygon', coordinates: [[[12, 55], [12.1, 55], [12.1, 55.1], [12, 55]]] };
    expect(storedShapeOf(g)).toEqual({ type: 'Polygon', coordinates: g.coordinates });
  });

  it('draws a circle with vertices on the geodesic circle, counter-clockwise and closed', () => {
    const ring = circleRing([12.7, 55.62], 900);
    expect(ring[0]).toEqual(ring[ring.length - 1]);
    for (const [lon, lat] of ring) expect(spheroidDistance(55.62, 12.7, lat, lon)).toBeCloseTo(900, 6);
    // Chord midpoints (on the great circle between vertices) lie within the tolerance inside.
    for (let i = 0; i + 1 < ring.length; i++) {
      const [a, b] = [ring[i] as Position, ring[i + 1] as Position];
      const va = unitVector(a[1], a[0]);
      const vb = unitVector(b[1], b[0]);
      const [mlat, mlon] = latLonOf(normalize([va[0] + vb[0], va[1] + vb[1], va[2] + vb[2]]));
      const d = spheroidDistance(55.62, 12.7, mlat, mlon);
      expect(900 - d).toBeGreaterThanOrEqual(0);
      expect(900 - d).toBeLessThanOrEqual(SHAPE_TOLERANCE_M);
    }
    expect(validateZoneGeometry({ type: 'Polygon', coordinates: [ring] })).toEqual([]);
  });

  it.each<[string, ZoneGeometry]>([
    ['circle', { type: 'Circle', center: [12.7, 55.62], radius_meters: 900 }],
    ['large circle', { type: 'Circle', center: [11, 57], radius_meters: 30_000 }],
    ['corridor with a sharp turn', { type: 'Corridor', centerline: [[12.45, 55.55], [12.5, 55.58], [12.47, 55.6], [12.55, 55.61]], width_meters: 400 }],
    ['corridor crossing itself', { type: 'Corridor', centerline: [[12.55, 55.6], [12.6, 55.62], [12.58, 55.66], [12.65, 55.66], [12.6, 55.61]], width_meters: 600 }],
    ['corridor with short legs and a hairpin', { type: 'Corridor', centerline: [[12.5, 55.6], [12.503, 55.6], [12.5035, 55.6012], [12.5, 55.6013], [12.52, 55.602]], width_meters: 300 }],
    ['corridor across the antimeridian', { type: 'Corridor', centerline: [[179.99, -16], [-179.98, -16.01], [-179.95, -16.03]], width_meters: 300 }],
  ])('stores a %s as a valid polygon that matches the exact shape beyond the tolerance', WORK_BOUNDED, (_name, geometry) => {
    const shape = storedShapeOf(geometry);
    expect(validateZoneGeometry(shape as ZoneGeometry)).toEqual([]);
    const result = agreement(geometry, 0.2);
    expect(result.disagree).toBe(0);
    expect(result.inside).toBeGreaterThan(100);
  });

  it('leaves a hole where a corridor closes a loop', () => {
    const shape = storedShapeOf({ type: 'Corridor', centerline: [[12.55, 55.6], [12.6, 55.62], [12.58, 55.66], [12.65, 55.66], [12.6, 55.61]], width_meters: 600 });
    const rings = shape.type === 'Polygon' ? shape.coordinates : shape.coordinates.flat();
    expect(rings.length).toBe(2);
  });
});
