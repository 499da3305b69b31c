import type { Position, ZoneGeometry } from '../../../schemas/zone.ts';
import { ArcSet, type ClosestPoint } from './arcs.ts';
import { GnomonicFrame, meanDirection, projectRing, ringContains, type PlaneRing } from './gnomonic.ts';
import {
  SPHERE_RADIUS_M,
  latLonOf,
  sphereAngle,
  spheroidDistance,
  spheroidDistanceBounds,
  spheroidRangeInCap,
  unitVector,
  type Vec3,
} from './sphere.ts';

/**
 * The exact membership test of one zone, agreeing with PostGIS geography:
 * - Polygon / MultiPolygon: inside = `ST_Covers(zone, point)` (great-circle edges; holes are
 *   outside); in buffer = not inside and `ST_DWithin(zone, point, buffer)`.
 * - Circle: inside = `ST_DWithin(center, point, radius)`; in buffer = `ST_DWithin(center, point,
 *   radius + buffer)` and not inside.
 * - Corridor: the same with the centerline and width / 2.
 * ST_DWithin on geography finds the closest point on the sphere and measures the WGS84 geodesic
 * to it; we do the same, but first bound that length from the sphere angle (rigorously, see
 * `spheroidDistanceBounds`) and only solve the geodesic when the bound cannot decide.
 */
export const OUTSIDE = 0;
export const IN_BUFFER = 1;
export const INSIDE = 2;
export type Placement = typeof OUTSIDE | typeof IN_BUFFER | typeof INSIDE;

/** How a spherical cap (an H3 cell) relates to the zone: wholly outside zone and buffer, wholly in
 * the buffer band, wholly inside, or needing the exact test. */
export const CAP_OUTSIDE = 0;
export const CAP_BUFFER = 1;
export const CAP_INSIDE = 2;
export const CAP_BOUNDARY = 3;
export type CapClass = typeof CAP_OUTSIDE | typeof CAP_BUFFER | typeof CAP_INSIDE | typeof CAP_BOUNDARY;

export interface ZoneShape {
  readonly type: ZoneGeometry['type'];
  /** Centre, and the great-circle angle (radians) from it within which the whole zone lies. */
  readonly centre: Vec3;
  readonly angularRadius: number;
  /** `p` is the unit vector of (lat, lon); pass it when testing one position against many zones. */
  place(lat: number, lon: number, bufferMeters: number, p?: Vec3): Placement;
  classifyCap(centre: Vec3, centreLat: number, alpha: number, bufferMeters: number): CapClass;
}

export function compileZoneShape(geometry: ZoneGeometry): ZoneShape {
  switch (geometry.type) {
    case 'Polygon':
      return new AreaShape('Polygon', [geometry.coordinates]);
    case 'MultiPolygon':
      return new AreaShape('MultiPolygon', geometry.coordinates);
    case 'Circle':
      return new DistanceShape('Circle', new PointCore(geometry.center), geometry.radius_meters);
    case 'Corridor':
      return new DistanceShape('Corridor', new ArcCore(geometry.centerline), geometry.width_meters / 2);
  }
}

/**
 * Place a point at great-circle angle `theta` from what the zone is measured from, given the
 * limit (0 for areas, radius or half width) and the buffer: decided from the rigorous bounds of
 * the spheroid distance when they suffice, else by the geodesic (`exact`).
 */
function placeByDistance(lat: number, theta: number, limit: number, bufferMeters: number, exact: DistanceSource, lon: number, p: Vec3): Placement {
  const [low, high] = spheroidDistanceBounds(lat, theta);
  const reach = limit + Math.max(0, bufferMeters);
  if (high <= limit) return INSIDE;
  if (low > reach) return OUTSIDE;
  if (low > limit && high <= reach) return IN_BUFFER;
  const d = exact.exactDistance(lat, lon, p);
  if (d <= limit) return INSIDE;
  return d <= reach && bufferMeters > 0 ? IN_BUFFER : OUTSIDE;
}

interface DistanceSource {
  exactDistance(lat: number, lon: number, p: Vec3): number;
}

interface Part {
  outer: PlaneRing;
  holes: PlaneRing[];
  minX: number;
  maxX: number;
  minY: number;
  maxY: number;
}

class AreaShape implements ZoneShape {
  readonly centre: Vec3;
  readonly angularRadius: number;
  private readonly frame: GnomonicFrame;
  private readonly parts: Part[];
  private readonly edges: ArcSet;
  private readonly xy: [number, number] = [0, 0];
  private readonly closestPoint: ClosestPoint = { chord2: 0, x: 0, y: 0, z: 0 };

  constructor(
    readonly type: 'Polygon' | 'MultiPolygon',
    polygons: readonly (readonly (readonly Position[])[])[],
  ) {
    const outerVertices = polygons.flatMap((p) => p[0] ?? []);
    this.frame = GnomonicFrame.about(outerVertices);
    this.centre = this.frame.centre;
    this.angularRadius = Math.max(...outerVertices.map(([lon, lat]) => sphereAngle(this.centre, unitVector(lat, lon))));
    this.parts = polygons.map((rings) => this.part(rings));
    this.edges = new ArcSet(polygons.flat());
  }

  private part(rings: readonly (readonly Position[])[]): Part {
    const plane = rings.map((r) => {
      const projected = projectRing(this.frame, r);
      if (!projected) throw new RangeError('zone ring reaches beyond the projection horizon');
      return projected;
    });
    const outer = plane[0] as PlaneRing;
    let [minX, maxX, minY, maxY] = [Infinity, -Infinity, Infinity, -Infinity];
    for (let i = 0; i < outer.length; i += 2) {
      minX = Math.min(minX, outer[i]!);
      maxX = Math.max(maxX, outer[i]!);
      minY = Math.min(minY, outer[i + 1]!);
      maxY = Math.max(maxY, outer[i + 1]!);
    }
    return { outer, holes: plane.slice(1), minX, maxX, minY, maxY };
  }

  /** ST_Covers: in some part's outer ring and in an even number of its holes. */
  private covers(p: Vec3): boolean {
    const xy = this.xy;
    if (!this.frame.project(p, xy)) return false;
    const [x, y] = xy;
    for (const part of this.parts) {
      if (x < part.minX || x > part.maxX || y < part.minY || y > part.maxY) continue;
      if (!ringContains(part.outer, x, y)) continue;
      let holes = 0;
      for (const hole of part.holes) if (ringContains(hole, x, y)) holes++;
      if (holes % 2 === 0) return true;
    }
    return false;
  }

  place(lat: number, lon: number, bufferMeters: number, p: Vec3 = unitVector(lat, lon)): Placement {
    if (this.covers(p)) return INSIDE;
    if (!(bufferMeters > 0)) return OUTSIDE;
    const c = this.edges.closest(p[0], p[1], p[2], this.closestPoint);
    const theta = 2 * Math.asin(Math.min(1, Math.sqrt(c.chord2) / 2));
    // Outside the area, its distance is to the boundary: limit 0.
    return placeByDistance(lat, theta, 0, bufferMeters, this, lon, p);
  }

  /** Geodesic to the closest point just found by `place`. */
  exactDistance(lat: number, lon: number): number {
    const c = this.closestPoint;
    const [clat, clon] = latLonOf([c.x, c.y, c.z]);
    return spheroidDistance(lat, lon, clat, clon);
  }

  classifyCap(centre: Vec3, centreLat: number, alpha: number, bufferMeters: number): CapClass {
    const theta = this.edges.angleTo(centre);
    if (theta <= alpha) return CAP_BOUNDARY;
    if (this.covers(centre)) return CAP_INSIDE;
    return classifyOutsideBand(centreLat, theta, alpha, 0, bufferMeters);
  }
}

/** The core a distance-defined zone is measured from: a point (Circle) or a line (Corridor). */
interface Core {
  readonly centre: Vec3;
  readonly angularRadius: number;
  angle(p: Vec3): number;
  exactDistance(lat: number, lon: number, p: Vec3): number;
}

class PointCore implements Core {
  readonly centre: Vec3;
  readonly angularRadius = 0;
  constructor(private readonly position: Position) {
    this.centre = unitVector(position[1], position[0]);
  }
  angle(p: Vec3): number {
    return sphereAngle(p, this.centre);
  }
  exactDistance(lat: number, lon: number): number {
    return spheroidDistance(this.position[1], this.position[0], lat, lon);
  }
}

class ArcCore implements Core {
  readonly centre: Vec3;
  readonly angularRadius: number;
  private readonly arcs: ArcSet;
  constructor(line: readonly Position[]) {
    this.arcs = new ArcSet([line]);
    this.centre = meanDirection(line);
    this.angularRadius = Math.max(...line.map(([lon, lat]) => sphereAngle(this.centre, unitVector(lat, lon))));
  }
  angle(p: Vec3): number {
    return this.arcs.angleTo(p);
  }
  exactDistance(lat: number, lon: number, p: Vec3): number {
    return this.arcs.spheroidDistanceFrom(lat, lon, p);
  }
}

class DistanceShape implements ZoneShape {
  readonly centre: Vec3;
  readonly angularRadius: number;

  constructor(
    readonly type: 'Circle' | 'Corridor',
    private readonly core: Core,
    private readonly limit: number,
  ) {
    this.centre = core.centre;
    // 1% over the sphere angle covers the spheroid/sphere ratio (< 0.6 %).
    this.angularRadius = core.angularRadius + (limit / SPHERE_RADIUS_M) * 1.01;
  }

  place(lat: number, lon: number, bufferMeters: number, p: Vec3 = unitVector(lat, lon)): Placement {
    return placeByDistance(lat, this.core.angle(p), this.limit, bufferMeters, this.core, lon, p);
  }

  classifyCap(centre: Vec3, centreLat: number, alpha: number, bufferMeters: number): CapClass {
    const theta = this.core.angle(centre);
    const [, high] = spheroidRangeInCap(centreLat, theta, alpha);
    if (high <= this.limit) return CAP_INSIDE;
    return classifyOutsideBand(centreLat, theta, alpha, this.limit, bufferMeters);
  }
}

/**
 * A cap known not to be wholly inside: every point of it is at a distance from the core within
 * the cap's range. Outside the zone (distance > limit) and within limit + buffer is the buffer
 * band.
 */
function classifyOutsideBand(centreLat: number, theta: number, alpha: number, limit: number, bufferMeters: number): CapClass {
  const [low, high] = spheroidRangeInCap(centreLat, theta, alpha);
  const reach = limit + Math.max(0, bufferMeters);
  if (low > reach) return CAP_OUTSIDE;
  if (low > limit && high <= reach && bufferMeters > 0) return CAP_BUFFER;
  return CAP_BOUNDARY;
}
