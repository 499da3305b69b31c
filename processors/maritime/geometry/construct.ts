import type { Position, ZoneGeometry } from '../../../schemas/zone.ts';
import { GnomonicFrame } from './gnomonic.ts';
import {
  SPHERE_RADIUS_M,
  cross,
  dot,
  latLonOf,
  normalize,
  spheroidDestination,
  spheroidDistance,
  unitVector,
  type Vec3,
} from './sphere.ts';
import { positiveRegion } from './winding-union.ts';

/**
 * The shape stored in PostGIS for display and analysts. Polygon and MultiPolygon are stored as
 * given. Circle and Corridor are stored as polygons within `SHAPE_TOLERANCE_M` of the exact
 * shape, but the exact test (here and in SQL) uses their analytic parameters: distance to the
 * centre / centerline, which is what PostGIS's ST_DWithin evaluates.
 */
export const SHAPE_TOLERANCE_M = 0.1;
const MIN_CIRCLE_VERTICES = 32;
const MAX_ARC_VERTICES = 8192;
/**
 * Longest stretch of a corridor side drawn as one edge. Short edges keep the great circle (what
 * PostGIS geography draws) and the straight line in degrees (what planar tools and maps draw,
 * and what ST_IsValid on geometry checks) within a centimetre of each other.
 */
const MAX_SIDE_STEP_M = 500;

export type StoredShape = { type: 'Polygon'; coordinates: Position[][] } | { type: 'MultiPolygon'; coordinates: Position[][][] };

export function storedShapeOf(geometry: ZoneGeometry): StoredShape {
  switch (geometry.type) {
    case 'Polygon':
      return { type: 'Polygon', coordinates: geometry.coordinates.map((r) => r.map(copy)) };
    case 'MultiPolygon':
      return { type: 'MultiPolygon', coordinates: geometry.coordinates.map((p) => p.map((r) => r.map(copy))) };
    case 'Circle':
      return { type: 'Polygon', coordinates: [circleRing(geometry.center, geometry.radius_meters)] };
    case 'Corridor':
      return corridorShape(geometry.centerline, geometry.width_meters / 2);
  }
}

function copy(p: Position): Position {
  return [p[0], p[1]];
}

/** Angular step for arcs of radius `r` whose chords stay within the tolerance. */
function arcStep(radius: number): number {
  const cos = 1 - SHAPE_TOLERANCE_M / 2 / radius;
  return cos <= -1 ? Math.PI : 2 * Math.acos(cos);
}

/**
 * A geodesic circle on WGS84: vertices by the direct geodesic problem, counter-clockwise
 * (GeoJSON's right-hand rule), dense enough that every chord is within 0.1 m of the circle.
 */
export function circleRing(center: Position, radius: number): Position[] {
  const n = Math.min(MAX_ARC_VERTICES, Math.max(MIN_CIRCLE_VERTICES, Math.ceil((2 * Math.PI) / arcStep(radius))));
  const ring: Position[] = [];
  for (let i = 0; i < n; i++) {
    const [lat, lon] = spheroidDestination(center[1], center[0], (-360 * i) / n, radius);
    ring.push([lon, lat]);
  }
  ring.push(copy(ring[0] as Position));
  return ring;
}

/**
 * The point whose closest point on a great-circle arc is `base` (it lies along the sphere tangent
 * `dir` from base) at WGS84 distance `distance`: the boundary of ST_DWithin(centerline, p, d).
 */
function offsetPoint(base: Vec3, baseLat: number, baseLon: number, dir: Vec3, distance: number): Vec3 {
  let theta = distance / SPHERE_RADIUS_M;
  let p: Vec3 = base;
  for (let i = 0; i < 4; i++) {
    p = normalize([base[0] * Math.cos(theta) + dir[0] * Math.sin(theta), base[1] * Math.cos(theta) + dir[1] * Math.sin(theta), base[2] * Math.cos(theta) + dir[2] * Math.sin(theta)]);
    const [lat, lon] = latLonOf(p);
    const d = spheroidDistance(baseLat, baseLon, lat, lon);
    if (Math.abs(d - distance) < 1e-6) break;
    theta *= distance / d;
  }
  return p;
}

/** Rotate tangent direction `a` towards `b` (both tangent at `axis`) by fraction t of the turn
 * `angle` (signed, radians, about `axis`). */
function rotateAbout(axis: Vec3, a: Vec3, angle: number): Vec3 {
  const c = Math.cos(angle);
  const s = Math.sin(angle);
  const k = cross(axis, a);
  return [a[0] * c + k[0] * s, a[1] * c + k[1] * s, a[2] * c + k[2] * s];
}

interface Arc {
  a: Vec3;
  b: Vec3;
  /** Unit normal of the arc's plane: to the left of travel from a to b. */
  n: Vec3;
  lengthM: number;
}

/**
 * A corridor's outline: the right side forward, a round cap, the left side back, a round cap,
 * with round joins on both sides of every turn. On the inside of a turn the raw outline loops
 * over itself; `positiveRegion` keeps what it winds around, which is exactly the union of the
 * capsules around the segments, holes included (a corridor that meets itself).
 */
function corridorShape(centerline: readonly Position[], half: number): StoredShape {
  const line = centerline.filter((p, i) => i === 0 || p[0] !== centerline[i - 1]?.[0] || p[1] !== centerline[i - 1]?.[1]);
  const arcs: Arc[] = [];
  for (let i = 0; i + 1 < line.length; i++) {
    const [pa, pb] = [line[i] as Position, line[i + 1] as Position];
    const a = unitVector(pa[1], pa[0]);
    const b = unitVector(pb[1], pb[0]);
    arcs.push({ a, b, n: normalize(cross(a, b)), lengthM: spheroidDistance(pa[1], pa[0], pb[1], pb[0]) });
  }
  const outline: Vec3[] = [];
  const step = arcStep(half);
  const around = (centre: Vec3, from: Vec3, angle: number): void => {
    const [lat, lon] = latLonOf(centre);
    const count = Math.max(1, Math.ceil(Math.abs(angle) / step));
    for (let k = 0; k <= count; k++) outline.push(offsetPoint(centre, lat, lon, rotateAbout(centre, from, (angle * k) / count), half));
  };
  const side = (arc: Arc, sign: 1 | -1): void => {
    // sign -1: right side (away from n), travelling a -> b; sign 1: left side, travelling b -> a.
    const [from, to] = sign < 0 ? [arc.a, arc.b] : [arc.b, arc.a];
    const count = Math.max(1, Math.ceil(arc.lengthM / MAX_SIDE_STEP_M));
    for (let k = 0; k <= count; k++) {
      const base = slerp(from, to, k / count);
      const [lat, lon] = latLonOf(base);
      const dir: Vec3 = [arc.n[0] * sign, arc.n[1] * sign, arc.n[2] * sign];
      outline.push(offsetPoint(base, lat, lon, dir, half));
    }
  };
  const neg = (v: Vec3): Vec3 => [-v[0], -v[1], -v[2]];
  for (let i = 0; i < arcs.length; i++) {
    const arc = arcs[i] as Arc;
    side(arc, -1);
    const nextArc = arcs[i + 1];
    if (nextArc) around(arc.b, neg(arc.n), turnAngle(arc.b, arc.n, nextArc.n));
  }
  const last = arcs[arcs.length - 1] as Arc;
  around(last.b, neg(last.n), Math.PI);
  for (let i = arcs.length - 1; i >= 0; i--) {
    const arc = arcs[i] as Arc;
    side(arc, 1);
    const prevArc = arcs[i - 1];
    if (prevArc) around(arc.a, arc.n, turnAngle(arc.a, arc.n, prevArc.n));
  }
  const first = arcs[0] as Arc;
  around(first.a, first.n, Math.PI);
  return toShape(outline);
}

/** Signed angle about `axis` that turns normal `from` into normal `to` (both tangent at axis). */
function turnAngle(axis: Vec3, from: Vec3, to: Vec3): number {
  return Math.atan2(dot(cross(from, to), axis), dot(from, to));
}

function slerp(a: Vec3, b: Vec3, t: number): Vec3 {
  if (t === 0) return a;
  if (t === 1) return b;
  const omega = Math.acos(Math.max(-1, Math.min(1, dot(a, b))));
  if (omega < 1e-15) return a;
  const s = Math.sin(omega);
  const wa = Math.sin((1 - t) * omega) / s;
  const wb = Math.sin(t * omega) / s;
  return normalize([a[0] * wa + b[0] * wb, a[1] * wa + b[1] * wb, a[2] * wa + b[2] * wb]);
}

function toShape(outline: Vec3[]): StoredShape {
  const frame = new GnomonicFrame(outline.reduce<Vec3>((s, v) => [s[0] + v[0], s[1] + v[1], s[2] + v[2]], [0, 0, 0]));
  const plane = outline.map((v): [number, number] => {
    const xy: [number, number] = [0, 0];
    frame.project(v, xy);
    return xy;
  });
  // Gnomonic plane units are radians near the centre: 1 cm is ~1.6e-9.
  const polygons = positiveRegion(plane, 0.01 / SPHERE_RADIUS_M).polygons.map((rings) =>
    rings.map((ring) =>
      ring.map(([x, y]): Position => {
        const [lat, lon] = frame.unproject(x, y);
        return [lon, lat];
      }),
    ),
  );
  if (polygons.length === 1) return { type: 'Polygon', coordinates: polygons[0] as Position[][] };
  return { type: 'MultiPolygon', coordinates: polygons };
}
