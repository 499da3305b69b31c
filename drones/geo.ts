// Distances and the point a mission flies to, on a spherical earth (good to a few metres at port scale).
import type { MissionTarget } from '../schemas/drone.ts';

export interface LonLat {
  lon: number;
  lat: number;
}

const EARTH_RADIUS_M = 6_371_008.8;
const rad = (deg: number) => (deg * Math.PI) / 180;

/** Great-circle distance in metres. */
export function distanceM(a: LonLat, b: LonLat): number {
  const dLat = rad(b.lat - a.lat);
  const dLon = rad(b.lon - a.lon);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** The point of a target a drone flies to first: the point itself, or the mean of a polygon's outer ring. */
export function targetPoint(target: MissionTarget): LonLat {
  if (target.type === 'Point') return { lon: target.coordinates[0] as number, lat: target.coordinates[1] as number };
  const ring = (target.coordinates[0] ?? []).slice(0, -1);
  const n = Math.max(1, ring.length);
  return { lon: ring.reduce((s, c) => s + (c[0] as number), 0) / n, lat: ring.reduce((s, c) => s + (c[1] as number), 0) / n };
}

/** A point `fraction` of the way from a to b (the simulator's flight; short distances). */
export function towards(a: LonLat, b: LonLat, fraction: number): LonLat {
  const f = Math.max(0, Math.min(1, fraction));
  return { lon: a.lon + (b.lon - a.lon) * f, lat: a.lat + (b.lat - a.lat) * f };
}
