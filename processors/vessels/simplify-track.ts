// Track simplification for GET /v1/maritime/vessels/{mmsi}/track?tolerance_meters: Douglas-Peucker on a
// local equirectangular projection (metres east and north of the track's first point). Over a harbour or
// a day's voyage (a few hundred km) its distance error is far below any tolerance worth asking for, it
// keeps the kept points' own times (a PostGIS ST_Simplify on a LINESTRING M would too, but needs a
// projection chosen per track), and it is a pure function the tests check directly.

const EARTH_RADIUS_M = 6_371_008.8;
const RAD = Math.PI / 180;

export interface TrackPoint {
  lat: number;
  lon: number;
}

/** Indexes of the points kept: first and last always; a point is dropped when within `toleranceM` of the line its kept neighbours make. */
export function simplifyTrack(points: readonly TrackPoint[], toleranceM: number): number[] {
  const n = points.length;
  if (n <= 2 || toleranceM <= 0) return points.map((_, i) => i);
  const first = points[0]!;
  const cosLat = Math.cos(first.lat * RAD);
  // Longitude differences taken across the antimeridian the short way.
  const xy = points.map((p) => {
    let dLon = p.lon - first.lon;
    if (dLon > 180) dLon -= 360;
    if (dLon < -180) dLon += 360;
    return [dLon * RAD * cosLat * EARTH_RADIUS_M, (p.lat - first.lat) * RAD * EARTH_RADIUS_M] as const;
  });
  const keep = new Uint8Array(n);
  keep[0] = 1;
  keep[n - 1] = 1;
  // An explicit stack: a long track must not recurse thousands deep.
  const stack: [number, number][] = [[0, n - 1]];
  while (stack.length > 0) {
    const [a, b] = stack.pop()!;
    let farthest = -1;
    let farthestDist = toleranceM;
    for (let i = a + 1; i < b; i++) {
      const d = segmentDistance(xy[i]!, xy[a]!, xy[b]!);
      if (d > farthestDist) {
        farthest = i;
        farthestDist = d;
      }
    }
    if (farthest >= 0) {
      keep[farthest] = 1;
      stack.push([a, farthest], [farthest, b]);
    }
  }
  const kept: number[] = [];
  for (let i = 0; i < n; i++) if (keep[i]) kept.push(i);
  return kept;
}

function segmentDistance(p: readonly [number, number], a: readonly [number, number], b: readonly [number, number]): number {
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const len2 = dx * dx + dy * dy;
  const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / len2));
  return Math.hypot(p[0] - (a[0] + t * dx), p[1] - (a[1] + t * dy));
}
