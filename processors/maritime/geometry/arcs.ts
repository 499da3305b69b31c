import type { Position } from '../../../schemas/zone.ts';
import { cross, dot, latLonOf, normalize, spheroidDistance, unitVector, angleFromChord, type Vec3 } from './sphere.ts';

/**
 * A set of great-circle arcs (polygon rings or a centerline) prepared for repeated
 * closest-point queries, reproducing PostGIS `edge_distance_to_point`: project the point onto the
 * arc's great circle; if the projection lies within the arc it is the closest point, otherwise
 * the nearer end is.
 */
const STRIDE = 15; // a(3) b(3) n(3) u = n x a (3) v = b x n (3)

export interface ClosestPoint {
  /** Squared chord between the query point and the closest point (unit sphere). */
  chord2: number;
  /** The closest point on the arcs. */
  x: number;
  y: number;
  z: number;
}

export class ArcSet {
  private readonly data: Float64Array;
  readonly count: number;

  constructor(lines: readonly (readonly Position[])[]) {
    const arcs: number[] = [];
    for (const line of lines) {
      for (let i = 0; i + 1 < line.length; i++) pushArc(arcs, line[i] as Position, line[i + 1] as Position);
    }
    this.data = Float64Array.from(arcs);
    this.count = arcs.length / STRIDE;
  }

  /** Closest point on any arc to the unit vector (px, py, pz); writes into `out`. */
  closest(px: number, py: number, pz: number, out: ClosestPoint): ClosestPoint {
    const d = this.data;
    let best = Infinity;
    for (let o = 0; o < d.length; o += STRIDE) {
      const s = px * d[o + 6]! + py * d[o + 7]! + pz * d[o + 8]!;
      const inArc = px * d[o + 9]! + py * d[o + 10]! + pz * d[o + 11]! >= 0 && px * d[o + 12]! + py * d[o + 13]! + pz * d[o + 14]! >= 0;
      if (inArc && (d[o + 6] !== 0 || d[o + 7] !== 0 || d[o + 8] !== 0)) {
        // chord^2 = 2 - 2 cos(asin s), written without cancellation
        const c2 = (2 * s * s) / (1 + Math.sqrt(Math.max(0, 1 - s * s)));
        if (c2 < best) {
          best = c2;
          out.x = px - s * d[o + 6]!;
          out.y = py - s * d[o + 7]!;
          out.z = pz - s * d[o + 8]!;
        }
        continue;
      }
      for (let e = 0; e < 6; e += 3) {
        const dx = px - d[o + e]!;
        const dy = py - d[o + e + 1]!;
        const dz = pz - d[o + e + 2]!;
        const c2 = dx * dx + dy * dy + dz * dz;
        if (c2 < best) {
          best = c2;
          out.x = d[o + e]!;
          out.y = d[o + e + 1]!;
          out.z = d[o + e + 2]!;
        }
      }
    }
    out.chord2 = best;
    return out;
  }

  /** Smallest great-circle angle (radians) from a unit vector to the arcs. */
  angleTo(p: Vec3): number {
    return angleFromChord(Math.sqrt(this.closest(p[0], p[1], p[2], scratch).chord2));
  }

  /**
   * PostGIS geography distance from (lat, lon) to the arcs: spheroid distance to the closest
   * point found on the sphere.
   */
  spheroidDistanceFrom(lat: number, lon: number, p: Vec3): number {
    const c = this.closest(p[0], p[1], p[2], scratch);
    const [clat, clon] = latLonOf([c.x, c.y, c.z]);
    return spheroidDistance(lat, lon, clat, clon);
  }
}

const scratch: ClosestPoint = { chord2: 0, x: 0, y: 0, z: 0 };

function pushArc(out: number[], from: Position, to: Position): void {
  const a = unitVector(from[1], from[0]);
  const b = unitVector(to[1], to[0]);
  const raw = cross(a, b);
  // A zero-length arc is a point: a zero normal sends every query to the end-point branch.
  const degenerate = Math.hypot(raw[0], raw[1], raw[2]) < 1e-15;
  const n: Vec3 = degenerate ? [0, 0, 0] : normalize(robustCross(a, b));
  const u = degenerate ? ([0, 0, 0] as Vec3) : cross(n, a);
  const v = degenerate ? ([0, 0, 0] as Vec3) : cross(b, n);
  out.push(...a, ...b, ...n, ...u, ...v);
}

/**
 * Cross product of two nearby unit vectors via (a + b) x (b - a), as PostGIS
 * `robust_cross_product` does, so short arcs keep an accurate normal.
 */
function robustCross(a: Vec3, b: Vec3): Vec3 {
  const sum: Vec3 = [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
  const diff: Vec3 = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
  const c = cross(sum, diff);
  return dot(c, c) === 0 ? cross(a, b) : c;
}
