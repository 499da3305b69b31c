import type { Position } from '../../../schemas/zone.ts';
import { DEG, cross, dot, normalize, unitVector, latLonOf, type Vec3 } from './sphere.ts';

/**
 * Gnomonic projection about a zone's centre. It maps great circles to straight lines, so a planar
 * point-in-polygon test on projected rings is the spherical test PostGIS geography makes
 * (`ST_Covers` with great-circle edges). Valid for points less than 90 degrees from the centre;
 * zones are limited far below that (ZONE_LIMITS.maxExtentMeters).
 */
export class GnomonicFrame {
  readonly centre: Vec3;
  private readonly east: Vec3;
  private readonly north: Vec3;

  constructor(centre: Vec3) {
    this.centre = normalize(centre);
    const c = this.centre;
    const polar = Math.abs(c[2]) > 0.999_999;
    this.east = polar ? [0, 1, 0] : normalize(cross([0, 0, 1], c));
    this.north = cross(c, this.east);
  }

  static about(points: readonly Position[]): GnomonicFrame {
    return new GnomonicFrame(meanDirection(points));
  }

  /**
   * Plane coordinates of a unit vector written to out[0], out[1]; false when the point is on or
   * beyond the horizon (more than ~87 degrees away), where it cannot be in the zone.
   */
  project(p: Vec3, out: [number, number]): boolean {
    const t = dot(p, this.centre);
    if (t <= 0.05) return false;
    out[0] = dot(p, this.east) / t;
    out[1] = dot(p, this.north) / t;
    return true;
  }

  projectLatLon(lat: number, lon: number, out: [number, number]): boolean {
    return this.project(unitVector(lat, lon), out);
  }

  /** Back from the plane to latitude and longitude (degrees). */
  unproject(x: number, y: number): [lat: number, lon: number] {
    const c = this.centre;
    const e = this.east;
    const n = this.north;
    return latLonOf([c[0] + x * e[0] + y * n[0], c[1] + x * e[1] + y * n[1], c[2] + x * e[2] + y * n[2]]);
  }
}

/** Normalised mean of unit vectors: a centre that does not care about the antimeridian. */
export function meanDirection(points: readonly Position[]): Vec3 {
  let x = 0;
  let y = 0;
  let z = 0;
  for (const [lon, lat] of points) {
    const phi = lat * DEG;
    const lambda = lon * DEG;
    x += Math.cos(phi) * Math.cos(lambda);
    y += Math.cos(phi) * Math.sin(lambda);
    z += Math.sin(phi);
  }
  return normalize([x, y, z]);
}

/** A ring in plane coordinates, x and y interleaved, closed (first point repeated last). */
export type PlaneRing = Float64Array;

export function projectRing(frame: GnomonicFrame, ring: readonly Position[]): PlaneRing | undefined {
  const out = new Float64Array(ring.length * 2);
  const xy: [number, number] = [0, 0];
  for (let i = 0; i < ring.length; i++) {
    const p = ring[i] as Position;
    if (!frame.projectLatLon(p[1], p[0], xy)) return undefined;
    out[2 * i] = xy[0];
    out[2 * i + 1] = xy[1];
  }
  return out;
}

/** Crossing-number point-in-ring test (ring closed). */
export function ringContains(ring: PlaneRing, x: number, y: number): boolean {
  let inside = false;
  const n = ring.length;
  for (let i = 0, j = n - 2; i < n; j = i, i += 2) {
    const yi = ring[i + 1]!;
    const yj = ring[j + 1]!;
    if (yi > y !== yj > y) {
      const xi = ring[i]!;
      const xj = ring[j]!;
      if (x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
    }
  }
  return inside;
}

/** Signed area of a closed plane ring (positive when counter-clockwise). */
export function ringArea(ring: PlaneRing): number {
  let a = 0;
  for (let i = 0; i + 3 < ring.length; i += 2) a += ring[i]! * ring[i + 3]! - ring[i + 2]! * ring[i + 1]!;
  return a / 2;
}
