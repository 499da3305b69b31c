/**
 * Planar segment intersection for ring validity (in the gnomonic plane, where the arcs are
 * straight). A sweep over x keeps it near-linear for well-spread rings.
 */
export interface Segment {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  polygon: number;
  ring: number;
  /** Position of the edge in its ring (repeated positions skipped). */
  index: number;
  ringSize: number;
}

export interface Intersection {
  a: Segment;
  b: Segment;
  x: number;
  y: number;
}

type Contact = { kind: 'none' } | { kind: 'cross' | 'touch' | 'overlap'; x: number; y: number };

const NONE: Contact = { kind: 'none' };
const EPS = 1e-12;

/**
 * The first forbidden contact: edges of one ring may meet only where neighbours share a vertex;
 * edges of different rings may touch at a point but not cross or overlap.
 */
export function findIntersection(segments: readonly Segment[]): Intersection | undefined {
  const sorted = [...segments].sort((a, b) => Math.min(a.x1, a.x2) - Math.min(b.x1, b.x2));
  for (let i = 0; i < sorted.length; i++) {
    const s = sorted[i] as Segment;
    const maxX = Math.max(s.x1, s.x2);
    for (let j = i + 1; j < sorted.length; j++) {
      const t = sorted[j] as Segment;
      if (Math.min(t.x1, t.x2) > maxX) break;
      if (Math.max(t.y1, t.y2) < Math.min(s.y1, s.y2) || Math.min(t.y1, t.y2) > Math.max(s.y1, s.y2)) continue;
      const c = contact(s, t);
      if (c.kind !== 'none' && forbidden(s, t, c.kind)) return { a: s, b: t, x: c.x, y: c.y };
    }
  }
  return undefined;
}

function forbidden(s: Segment, t: Segment, kind: 'cross' | 'touch' | 'overlap'): boolean {
  const sameRing = s.polygon === t.polygon && s.ring === t.ring;
  if (!sameRing) return kind !== 'touch';
  const gap = Math.abs(s.index - t.index);
  const neighbours = gap === 1 || gap === s.ringSize - 1;
  return neighbours ? kind === 'overlap' : true;
}

function orient(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): number {
  const ux = bx - ax;
  const uy = by - ay;
  const vx = cx - ax;
  const vy = cy - ay;
  const o = ux * vy - uy * vx;
  return Math.abs(o) <= EPS * Math.hypot(ux, uy) * Math.hypot(vx, vy) ? 0 : o;
}

function within(a: number, b: number, v: number): boolean {
  const slack = EPS * (Math.abs(a) + Math.abs(b) + 1e-9);
  return v >= Math.min(a, b) - slack && v <= Math.max(a, b) + slack;
}

function onSegment(s: Segment, x: number, y: number): boolean {
  return within(s.x1, s.x2, x) && within(s.y1, s.y2, y);
}

function contact(s: Segment, t: Segment): Contact {
  const d1 = orient(t.x1, t.y1, t.x2, t.y2, s.x1, s.y1);
  const d2 = orient(t.x1, t.y1, t.x2, t.y2, s.x2, s.y2);
  const d3 = orient(s.x1, s.y1, s.x2, s.y2, t.x1, t.y1);
  const d4 = orient(s.x1, s.y1, s.x2, s.y2, t.x2, t.y2);
  if (d1 === 0 && d2 === 0 && d3 === 0 && d4 === 0) return collinear(s, t);
  if (((d1 < 0 && d2 > 0) || (d1 > 0 && d2 < 0)) && ((d3 < 0 && d4 > 0) || (d3 > 0 && d4 < 0))) {
    const r = d1 / (d1 - d2);
    return { kind: 'cross', x: s.x1 + r * (s.x2 - s.x1), y: s.y1 + r * (s.y2 - s.y1) };
  }
  if (d1 === 0 && onSegment(t, s.x1, s.y1)) return { kind: 'touch', x: s.x1, y: s.y1 };
  if (d2 === 0 && onSegment(t, s.x2, s.y2)) return { kind: 'touch', x: s.x2, y: s.y2 };
  if (d3 === 0 && onSegment(s, t.x1, t.y1)) return { kind: 'touch', x: t.x1, y: t.y1 };
  if (d4 === 0 && onSegment(s, t.x2, t.y2)) return { kind: 'touch', x: t.x2, y: t.y2 };
  return NONE;
}

/** Collinear segments: overlap if they share more than a point. */
function collinear(s: Segment, t: Segment): Contact {
  const useX = Math.abs(s.x2 - s.x1) >= Math.abs(s.y2 - s.y1);
  const [a1, a2] = useX ? [s.x1, s.x2] : [s.y1, s.y2];
  const [b1, b2] = useX ? [t.x1, t.x2] : [t.y1, t.y2];
  const lo = Math.max(Math.min(a1, a2), Math.min(b1, b2));
  const hi = Math.min(Math.max(a1, a2), Math.max(b1, b2));
  const scale = Math.max(Math.abs(a2 - a1), Math.abs(b2 - b1));
  if (hi - lo > EPS * 1e3 * scale) {
    const x = useX ? (lo + hi) / 2 : s.x1 + ((s.x2 - s.x1) * ((lo + hi) / 2 - s.y1)) / (s.y2 - s.y1);
    const y = useX ? s.y1 + ((s.y2 - s.y1) * ((lo + hi) / 2 - s.x1)) / (s.x2 - s.x1) : (lo + hi) / 2;
    return { kind: 'overlap', x, y };
  }
  if (hi - lo >= -EPS * 1e3 * scale) {
    return useX
      ? { kind: 'touch', x: lo, y: s.y1 + ((s.y2 - s.y1) * (lo - s.x1)) / (s.x2 - s.x1) }
      : { kind: 'touch', x: s.x1 + ((s.x2 - s.x1) * (lo - s.y1)) / (s.y2 - s.y1), y: lo };
  }
  return NONE;
}
