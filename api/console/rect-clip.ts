// Polygons clipped to an axis-aligned box, for the console's land (docs/console.md "Land data"): the site's
// detailed OpenStreetMap land is cut to the site's box once (infra/cut-site-land.ts), and the world's coarse
// Natural Earth land is cut to the rest of the world (outsideBox) so the two never overlap. A box is convex,
// so clipping each ring on its own (Sutherland-Hodgman) is exact for filling: a ring that leaves and
// re-enters the box comes back with zero-width edges along the box's side, which draw nothing. Pure.
export type Ring = [number, number][];
/** [west, south, east, north] in degrees. */
export type Box = [number, number, number, number];

/** One ring clipped to the box; fewer than 4 points (a closed triangle) means nothing of it is inside. */
export function clipRing(ring: Ring, [west, south, east, north]: Box): Ring {
  let points = ring;
  const edges: [(p: [number, number]) => boolean, (a: [number, number], b: [number, number]) => [number, number]][] = [
    [(p) => p[0] >= west, (a, b) => [west, a[1] + ((b[1] - a[1]) * (west - a[0])) / (b[0] - a[0])]],
    [(p) => p[0] <= east, (a, b) => [east, a[1] + ((b[1] - a[1]) * (east - a[0])) / (b[0] - a[0])]],
    [(p) => p[1] >= south, (a, b) => [a[0] + ((b[0] - a[0]) * (south - a[1])) / (b[1] - a[1]), south]],
    [(p) => p[1] <= north, (a, b) => [a[0] + ((b[0] - a[0]) * (north - a[1])) / (b[1] - a[1]), north]],
  ];
  for (const [inside, cross] of edges) {
    if (points.length === 0) break;
    const out: Ring = [];
    for (let i = 0; i < points.length; i++) {
      const current = points[i] as [number, number];
      const previous = points[(i + points.length - 1) % points.length] as [number, number];
      if (inside(current)) {
        if (!inside(previous)) out.push(cross(previous, current));
        out.push(current);
      } else if (inside(previous)) out.push(cross(previous, current));
    }
    points = out;
  }
  if (points.length < 3) return [];
  const [first, last] = [points[0] as [number, number], points[points.length - 1] as [number, number]];
  if (first[0] !== last[0] || first[1] !== last[1]) points.push([first[0], first[1]]);
  return points.length < 4 ? [] : points;
}

/** A polygon (outer ring, then holes) clipped to the box; null when its outer ring lies outside. */
export function clipPolygon(rings: Ring[], box: Box): Ring[] | null {
  const bounds = ringBox(rings[0] ?? []);
  if (!overlaps(bounds, box)) return null;
  // Most polygons of the world lie wholly in one of outsideBox's strips: nothing to cut.
  if (bounds[0] >= box[0] && bounds[2] <= box[2] && bounds[1] >= box[1] && bounds[3] <= box[3]) return rings;
  const outer = clipRing(rings[0] ?? [], box);
  if (outer.length === 0) return null;
  const holes = rings.slice(1).map((r) => clipRing(r, box)).filter((r) => r.length > 0);
  return [outer, ...holes];
}

/** Every polygon of the geometries clipped to the box, as the polygons of one MultiPolygon. */
export function clipToBox(polygons: Ring[][], box: Box): Ring[][] {
  const out: Ring[][] = [];
  for (const p of polygons) {
    const clipped = clipPolygon(p, box);
    if (clipped) out.push(clipped);
  }
  return out;
}

/** The world less the box, as four boxes that share edges and never overlap: west, east, south, north strips. */
export function outsideBox([west, south, east, north]: Box): Box[] {
  return [
    [-180, -90, west, 90],
    [east, -90, 180, 90],
    [west, -90, east, south],
    [west, north, east, 90],
  ];
}

/** The polygons of Polygon and MultiPolygon geometries (others are not land). */
export function polygonsOf(geometries: GeoJSON.Geometry[]): Ring[][] {
  const out: Ring[][] = [];
  for (const g of geometries) {
    if (g.type === 'Polygon') out.push(g.coordinates as Ring[]);
    else if (g.type === 'MultiPolygon') out.push(...(g.coordinates as Ring[][]));
    else if (g.type === 'GeometryCollection') out.push(...polygonsOf(g.geometries));
  }
  return out;
}

function ringBox(ring: Ring): Box {
  let [w, s, e, n] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const [x, y] of ring) {
    if (x < w) w = x;
    if (x > e) e = x;
    if (y < s) s = y;
    if (y > n) n = y;
  }
  return [w, s, e, n];
}

function overlaps(a: Box, b: Box): boolean {
  return a[0] < b[2] && a[2] > b[0] && a[1] < b[3] && a[3] > b[1];
}

/** Whether a point is inside a polygon's outer ring and in none of its holes (even-odd rule). Pure; for tests and checks. */
export function pointInPolygon([x, y]: [number, number], rings: Ring[]): boolean {
  let inside = false;
  for (const ring of rings) {
    for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
      const [xi, yi] = ring[i] as [number, number];
      const [xj, yj] = ring[j] as [number, number];
      if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
    }
  }
  return inside;
}
