import { describe, expect, it } from 'vitest';
import { WORK_BOUNDED } from '../../../../support/work-bounded.ts';
import type { Position, ZoneGeometry } from '../../../../../schemas/zone.ts';
import { ArcSet } from '../../../../../processors/maritime/geometry/arcs.ts';
import {
  compileZoneShape,
  INSIDE,
  IN_BUFFER,
  OUTSIDE,
  type Placement,
} from '../../../../../processors/maritime/geometry/zone-shape.ts';
import { spheroidDistance, spheroidDistanceBounds, sphereAngle, unitVector, type Vec3 } from '../../../../../processors/maritime/geometry/sphere.ts';

function seeded(seed: number): () => number {
  let s = seed;
  return () => ((s = (s * 16807) % 2147483647) - 1) / 2147483646;
}

/** Reference point-in-polygon on the sphere, independent of the gnomonic test: winding angle. */
function sphericalWinding(ring: readonly Position[], p: Vec3): number {
  let total = 0;
  for (let i = 0; i + 1 < ring.length; i++) {
    const a = unitVector((ring[i] as Position)[1], (ring[i] as Position)[0]);
    const b = unitVector((ring[i + 1] as Position)[1], (ring[i + 1] as Position)[0]);
    const pa: Vec3 = [a[0] - p[0], a[1] - p[1], a[2] - p[2]];
    const pb: Vec3 = [b[0] - p[0], b[1] - p[1], b[2] - p[2]];
    const cross: Vec3 = [pa[1] * pb[2] - pa[2] * pb[1], pa[2] * pb[0] - pa[0] * pb[2], pa[0] * pb[1] - pa[1] * pb[0]];
    total += Math.atan2(cross[0] * p[0] + cross[1] * p[1] + cross[2] * p[2], pa[0] * pb[0] + pa[1] * pb[1] + pa[2] * pb[2]);
  }
  return Math.round(total / (2 * Math.PI));
}

/** Slow reference: geodesic to the sphere-closest point, never using the bounds. */
function referencePlacement(geometry: ZoneGeometry, lat: number, lon: number, buffer: number): Placement {
  const p = unitVector(lat, lon);
  if (geometry.type === 'Circle') {
    const d = spheroidDistance(geometry.center[1], geometry.center[0], lat, lon);
    return d <= geometry.radius_meters ? INSIDE : d <= geometry.radius_meters + buffer ? IN_BUFFER : OUTSIDE;
  }
  if (geometry.type === 'Corridor') {
    const d = new ArcSet([geometry.centerline]).spheroidDistanceFrom(lat, lon, p);
    return d <= geometry.width_meters / 2 ? INSIDE : d <= geometry.width_meters / 2 + buffer ? IN_BUFFER : OUTSIDE;
  }
  const polygons = geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.coordinates;
  const inside = polygons.some((rings) => sphericalWinding(rings[0] as Position[], p) !== 0 && rings.slice(1).filter((h) => sphericalWinding(h, p) !== 0).length % 2 === 0);
  if (inside) return INSIDE;
  const d = new ArcSet(polygons.flat()).spheroidDistanceFrom(lat, lon, p);
  return d <= buffer ? IN_BUFFER : OUTSIDE;
}

const GEOMETRIES: [string, ZoneGeometry, number][] = [
  [
    'polygon with a hole',
    {
      type: 'Polygon',
      coordinates: [
        [[12.575, 55.68], [12.61, 55.678], [12.625, 55.69], [12.6, 55.695], [12.615, 55.705], [12.58, 55.71], [12.59, 55.695], [12.575, 55.68]],
        [[12.595, 55.684], [12.608, 55.686], [12.604, 55.69], [12.595, 55.684]],
      ],
    },
    250,
  ],
  ['multipolygon', { type: 'MultiPolygon', coordinates: [[[[12.66, 55.7], [12.69, 55.7], [12.69, 55.72], [12.66, 55.72], [12.66, 55.7]]], [[[12.7, 55.7], [12.74, 55.705], [12.73, 55.73], [12.7, 55.7]]]] }, 400],
  ['circle', { type: 'Circle', center: [12.7, 55.62], radius_meters: 900 }, 300],
  ['corridor', { type: 'Corridor', centerline: [[12.45, 55.55], [12.5, 55.58], [12.47, 55.6], [12.55, 55.61]], width_meters: 400 }, 250],
  ['antimeridian polygon', { type: 'Polygon', coordinates: [[[179.8, -16.9], [-179.85, -16.95], [-179.8, -16.7], [179.9, -16.6], [179.8, -16.9]]] }, 500],
];

describe('compileZoneShape', () => {
  it.each(GEOMETRIES)('places random points around a %s as the slow reference does', WORK_BOUNDED, (_name, geometry, buffer) => {
    const shape = compileZoneShape(geometry);
    const random = seeded(11);
    const [clat, clon] = [Math.asin(shape.centre[2]) * (180 / Math.PI), Math.atan2(shape.centre[1], shape.centre[0]) * (180 / Math.PI)];
    const span = ((shape.angularRadius + buffer / 6.37e6) * 1.3 * 180) / Math.PI;
    const counts = [0, 0, 0];
    for (let i = 0; i < 3_000; i++) {
      const lat = clat + (random() * 2 - 1) * span;
      const lon = ((clon + ((random() * 2 - 1) * span) / Math.cos((clat * Math.PI) / 180) + 540) % 360) - 180;
      const expected = referencePlacement(geometry, lat, lon, buffer);
      expect(shape.place(lat, lon, buffer), `(${lon}, ${lat})`).toBe(expected);
      counts[expected]!++;
    }
    expect(counts.every((c) => c > 20), JSON.stringify(counts)).toBe(true);
  });

  it('treats points in a hole as outside, and within the buffer of the hole edge as in the buffer', () => {
    const geometry = GEOMETRIES[0]![1];
    const shape = compileZoneShape(geometry);
    expect(shape.place(55.687, 12.602, 250)).toBe(IN_BUFFER);
    expect(shape.place(55.687, 12.602, 0)).toBe(OUTSIDE);
    expect(shape.place(55.69, 12.585, 0)).toBe(INSIDE);
  });

  it('decides a circle edge to the millimetre through the geodesic', () => {
    const shape = compileZoneShape({ type: 'Circle', center: [12.7, 55.62], radius_meters: 900 });
    // 899.999 m and 900.001 m due north of the centre, found by bisection on the geodesic.
    const at = (m: number): number => {
      let [lo, hi] = [55.62, 55.64];
      for (let i = 0; i < 60; i++) {
        const mid = (lo + hi) / 2;
        if (spheroidDistance(55.62, 12.7, mid, 12.7) < m) lo = mid;
        else hi = mid;
      }
      return lo;
    };
    expect(shape.place(at(899.999), 12.7, 0)).toBe(INSIDE);
    expect(shape.place(at(900.001), 12.7, 0)).toBe(OUTSIDE);
    expect(shape.place(at(1199.999), 12.7, 300)).toBe(IN_BUFFER);
    expect(shape.place(at(1200.001), 12.7, 300)).toBe(OUTSIDE);
  });
});

describe('spheroidDistanceBounds', () => {
  it('brackets the WGS84 geodesic from pole to equator and up to 700 km', WORK_BOUNDED, () => {
    const random = seeded(5);
    for (let i = 0; i < 5_000; i++) {
      const lat1 = -89 + random() * 178;
      const lon1 = -180 + random() * 360;
      const lat2 = Math.max(-89.9, Math.min(89.9, lat1 + (random() - 0.5) * 12));
      const lon2 = lon1 + (random() - 0.5) * 12;
      const s = spheroidDistance(lat1, lon1, lat2, lon2);
      const [low, high] = spheroidDistanceBounds(lat1, sphereAngle(unitVector(lat1, lon1), unitVector(lat2, lon2)));
      expect(s).toBeGreaterThanOrEqual(low);
      expect(s).toBeLessThanOrEqual(high);
    }
  });
});
