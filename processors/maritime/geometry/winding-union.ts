/**
 * The region a closed curve winds around at least once (nonzero, positive winding), as simple
 * rings. Used to turn a corridor's raw outline (offset curves with round joins and caps, which
 * loops over itself at inner corners and where the corridor crosses itself) into a valid polygon:
 * the union of the capsules around its segments. Planar: run it in the gnomonic plane, where the
 * outline's edges are the great-circle arcs PostGIS will draw.
 *
 * Method: split every edge where another crosses it; walking the curve, the winding number on the
 * left changes by +-1 at each crossing (by the direction of the edge crossed), so it is found for
 * every piece from one point-in-curve count at the start. Pieces with winding 1 on their left and
 * 0 on their right bound the region; they are chained into rings.
 */
type Point = [x: number, y: number];

interface Cut {
  t: number;
  /** +1 when the other edge crosses from our right to our left. */
  delta: number;
  vertex: number;
}

export interface WindingRegion {
  /** Counter-clockwise outer rings, each with its clockwise holes; rings closed. */
  polygons: Point[][][];
}

/**
 * `tolerance` (plane units): ring vertices closer than this are merged, and rings of less area
 * than its square are dropped; several edges crossing at almost one point otherwise leave
 * slivers of no area behind, which PostGIS rightly calls invalid.
 */
export function positiveRegion(curve: readonly Point[], tolerance = 0): WindingRegion {
  const pts = dedupe(curve);
  const n = pts.length;
  const vertices: Point[] = pts.map((p) => [p[0], p[1]]);
  const cuts: Cut[][] = pts.map(() => []);
  addCrossings(pts, vertices, cuts);

  const pieces: { from: number; to: number; wLeft: number }[] = [];
  const start = pts[0] as Point;
  const next = pts[1 % n] as Point;
  let w = windingNumber(pts, ...leftOf(start, next, cuts[0]));
  for (let i = 0; i < n; i++) {
    const list = (cuts[i] as Cut[]).sort((a, b) => a.t - b.t);
    let from = i;
    for (const cut of list) {
      pieces.push({ from, to: cut.vertex, wLeft: w });
      w += cut.delta;
      from = cut.vertex;
    }
    pieces.push({ from, to: (i + 1) % n, wLeft: w });
  }
  const boundary = pieces.filter((p) => p.wLeft === 1 && p.from !== p.to);
  const rings = chain(boundary, vertices)
    .map((ring) => simplify(ring, tolerance))
    .filter((ring) => ring.length >= 4 && Math.abs(signedArea(ring)) > tolerance * tolerance);
  return { polygons: assemble(rings) };
}

function dedupe(curve: readonly Point[]): Point[] {
  const out: Point[] = [];
  for (const p of curve) {
    const last = out[out.length - 1];
    if (!last || last[0] !== p[0] || last[1] !== p[1]) out.push(p);
  }
  const first = out[0];
  const last = out[out.length - 1];
  if (out.length > 1 && first && last && first[0] === last[0] && first[1] === last[1]) out.pop();
  return out;
}

/** A point just left of the first edge, before its first cut. */
function leftOf(a: Point, b: Point, cuts: Cut[] | undefined): [number, number] {
  const firstT = Math.min(0.5, ...(cuts ?? []).map((c) => c.t / 2));
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const len = Math.hypot(dx, dy);
  const eps = len * 1e-7;
  return [a[0] + dx * firstT - (dy / len) * eps, a[1] + dy * firstT + (dx / len) * eps];
}

function windingNumber(pts: readonly Point[], x: number, y: number): number {
  let w = 0;
  for (let i = 0; i < pts.length; i++) {
    const [ax, ay] = pts[i] as Point;
    const [bx, by] = pts[(i + 1) % pts.length] as Point;
    const side = (bx - ax) * (y - ay) - (by - ay) * (x - ax);
    if (ay <= y && by > y && side > 0) w++;
    else if (ay > y && by <= y && side < 0) w--;
  }
  return w;
}

/** Every proper crossing of two non-neighbouring edges becomes a shared vertex on both. */
function addCrossings(pts: readonly Point[], vertices: Point[], cuts: Cut[][]): void {
  const n = pts.length;
  const order = [...Array(n).keys()].sort((i, j) => minX(pts, i) - minX(pts, j));
  for (let a = 0; a < n; a++) {
    const i = order[a] as number;
    const [p1, p2] = [pts[i] as Point, pts[(i + 1) % n] as Point];
    const maxXi = Math.max(p1[0], p2[0]);
    for (let b = a + 1; b < n; b++) {
      const j = order[b] as number;
      if (minX(pts, j) > maxXi) break;
      if (Math.abs(i - j) === 1 || Math.abs(i - j) === n - 1) continue;
      const [q1, q2] = [pts[j] as Point, pts[(j + 1) % n] as Point];
      const hit = crossing(p1, p2, q1, q2);
      if (!hit) continue;
      const vertex = vertices.push([p1[0] + hit.t * (p2[0] - p1[0]), p1[1] + hit.t * (p2[1] - p1[1])]) - 1;
      (cuts[i] as Cut[]).push({ t: hit.t, delta: hit.sign, vertex });
      (cuts[j] as Cut[]).push({ t: hit.u, delta: -hit.sign, vertex });
    }
  }
}

function minX(pts: readonly Point[], i: number): number {
  return Math.min((pts[i] as Point)[0], (pts[(i + 1) % pts.length] as Point)[0]);
}

/** Proper crossing of p1p2 and q1q2: parameters on both, and +1 if q crosses p right-to-left. */
function crossing(p1: Point, p2: Point, q1: Point, q2: Point): { t: number; u: number; sign: number } | undefined {
  const rx = p2[0] - p1[0];
  const ry = p2[1] - p1[1];
  const sx = q2[0] - q1[0];
  const sy = q2[1] - q1[1];
  const denom = rx * sy - ry * sx;
  if (denom === 0) return undefined;
  const qpx = q1[0] - p1[0];
  const qpy = q1[1] - p1[1];
  const t = (qpx * sy - qpy * sx) / denom;
  const u = (qpx * ry - qpy * rx) / denom;
  if (!(t > 0 && t < 1 && u > 0 && u < 1)) return undefined;
  // q crosses p from p's right to p's left when cross(r, s) > 0; walking along p past the
  // crossing, p's left side then moves onto q's left side: winding rises by one.
  return { t, u, sign: denom > 0 ? -1 : 1 };
}

function chain(pieces: { from: number; to: number }[], vertices: Point[]): Point[][] {
  const outgoing = new Map<number, { from: number; to: number }[]>();
  for (const p of pieces) {
    const list = outgoing.get(p.from);
    if (list) list.push(p);
    else outgoing.set(p.from, [p]);
  }
  const used = new Set<{ from: number; to: number }>();
  const rings: Point[][] = [];
  for (const first of pieces) {
    if (used.has(first)) continue;
    const ring: Point[] = [vertices[first.from] as Point];
    let piece: { from: number; to: number } | undefined = first;
    while (piece && !used.has(piece)) {
      used.add(piece);
      ring.push(vertices[piece.to] as Point);
      if (piece.to === first.from) break;
      piece = outgoing.get(piece.to)?.find((p) => !used.has(p));
    }
    if (ring.length >= 4 && ring[0] === ring[ring.length - 1]) rings.push(ring);
  }
  return rings;
}

/** Drops vertices within `tolerance` of the previous kept one; the ring stays closed. */
function simplify(ring: Point[], tolerance: number): Point[] {
  const out: Point[] = [];
  for (const p of ring.slice(0, -1)) {
    const last = out[out.length - 1];
    if (!last || Math.hypot(p[0] - last[0], p[1] - last[1]) > tolerance) out.push(p);
  }
  while (out.length > 1 && Math.hypot((out[0] as Point)[0] - (out[out.length - 1] as Point)[0], (out[0] as Point)[1] - (out[out.length - 1] as Point)[1]) <= tolerance) out.pop();
  if (out.length > 0) out.push(out[0] as Point);
  return out;
}

function signedArea(ring: Point[]): number {
  let a = 0;
  for (let i = 0; i + 1 < ring.length; i++) a += (ring[i] as Point)[0] * (ring[i + 1] as Point)[1] - (ring[i + 1] as Point)[0] * (ring[i] as Point)[1];
  return a / 2;
}

function contains(ring: Point[], p: Point): boolean {
  return windingNumber(ring.slice(0, -1), p[0], p[1]) !== 0;
}

/** Outer rings run counter-clockwise; each hole goes to the smallest outer ring holding it. */
function assemble(rings: Point[][]): Point[][][] {
  const outers = rings.filter((r) => signedArea(r) > 0).sort((a, b) => signedArea(a) - signedArea(b));
  const polygons = outers.map((r) => [r]);
  for (const hole of rings.filter((r) => signedArea(r) < 0)) {
    const owner = outers.findIndex((o) => contains(o, interiorPointOf(hole)));
    if (owner >= 0) (polygons[owner] as Point[][]).push(hole);
  }
  return polygons;
}

/** A point just inside a hole ring (the region enclosed by it): left of a clockwise ring is out. */
function interiorPointOf(ring: Point[]): Point {
  const a = ring[0] as Point;
  const b = ring[1] as Point;
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const len = Math.hypot(dx, dy);
  const eps = len * 1e-6;
  return [(a[0] + b[0]) / 2 + (dy / len) * eps, (a[1] + b[1]) / 2 - (dx / len) * eps];
}
