import geodesic from 'geographiclib-geodesic';

/**
 * The Earth as PostGIS geography sees it. Edges are great-circle arcs on a sphere whose latitude
 * is the geodetic latitude; distances are found on that sphere (closest points), then measured on
 * the WGS84 spheroid (`spheroid_distance`, GeographicLib's inverse problem). We reproduce both.
 */
export const WGS84_A = 6_378_137;
export const WGS84_F = 1 / 298.257223563;
const WGS84_B = WGS84_A * (1 - WGS84_F);
const E2 = WGS84_F * (2 - WGS84_F);
/** PostGIS `spheroid_init`: radius = (2a + b) / 3. */
export const SPHERE_RADIUS_M = (2 * WGS84_A + WGS84_B) / 3;
export const DEG = Math.PI / 180;

const wgs84 = geodesic.Geodesic.WGS84;
const DISTANCE_MASK = geodesic.Geodesic.DISTANCE;

/** Geodesic distance on WGS84 in metres (the same algorithm PostGIS calls). */
export function spheroidDistance(lat1: number, lon1: number, lat2: number, lon2: number): number {
  return wgs84.Inverse(lat1, lon1, lat2, lon2, DISTANCE_MASK).s12 ?? Number.NaN;
}

/** The point `distanceM` from (lat, lon) along `azimuthDeg`, on WGS84. */
export function spheroidDestination(lat: number, lon: number, azimuthDeg: number, distanceM: number): [lat: number, lon: number] {
  const r = wgs84.Direct(lat, lon, azimuthDeg, distanceM);
  return [r.lat2 ?? Number.NaN, normalizeLongitude(r.lon2 ?? Number.NaN)];
}

export function normalizeLongitude(lon: number): number {
  if (lon >= -180 && lon <= 180) return lon;
  const r = ((((lon + 180) % 360) + 360) % 360) - 180;
  return r === -180 && lon > 0 ? 180 : r;
}

/** A unit vector, as PostGIS `geog2cart` makes it. */
export type Vec3 = [x: number, y: number, z: number];

export function unitVector(lat: number, lon: number): Vec3 {
  const phi = lat * DEG;
  const lambda = lon * DEG;
  const c = Math.cos(phi);
  return [c * Math.cos(lambda), c * Math.sin(lambda), Math.sin(phi)];
}

/** Latitude and longitude in degrees of a (not necessarily unit) vector, as `cart2geog`. */
export function latLonOf(v: Vec3): [lat: number, lon: number] {
  const [x, y, z] = v;
  return [Math.atan2(z, Math.hypot(x, y)) / DEG, Math.atan2(y, x) / DEG];
}

export function cross(a: Vec3, b: Vec3): Vec3 {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}

export function dot(a: Vec3, b: Vec3): number {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

export function normalize(v: Vec3): Vec3 {
  const n = Math.hypot(v[0], v[1], v[2]);
  return [v[0] / n, v[1] / n, v[2] / n];
}

/** Central angle in radians between two unit vectors, from their chord (stable for small angles). */
export function angleFromChord(chord: number): number {
  return 2 * Math.asin(Math.min(1, chord / 2));
}

export function sphereAngle(a: Vec3, b: Vec3): number {
  return angleFromChord(Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]));
}

/** Meridional radius of curvature at geodetic latitude `phi` (radians). */
function meridionalRadius(phi: number): number {
  const s = Math.sin(phi);
  const w2 = 1 - E2 * s * s;
  return (WGS84_A * (1 - E2)) / (w2 * Math.sqrt(w2));
}

/** Prime-vertical radius of curvature at geodetic latitude `phi` (radians). */
function primeVerticalRadius(phi: number): number {
  const s = Math.sin(phi);
  return WGS84_A / Math.sqrt(1 - E2 * s * s);
}

/**
 * Bounds on the WGS84 geodesic length between two points whose great-circle angle is `theta`
 * (radians), one of them at latitude `latDeg`. Along any path the spheroid line element lies
 * between M(phi) and N(phi) times the sphere's angular element, and both paths (the geodesic
 * and the great circle) stay within `theta` of the point, so M at the smallest |phi| and N at
 * the largest bound the ratio. Rigorous, and tight (a few parts in 10^4) for local distances.
 */
export function spheroidDistanceBounds(latDeg: number, theta: number): [low: number, high: number] {
  return spheroidRangeInCap(latDeg, theta, 0);
}

/**
 * Bounds on the spheroid distance from any point of a spherical cap (centre at `latDeg`, angular
 * radius `alpha`) to a set whose great-circle angle from the cap centre is `theta`.
 */
export function spheroidRangeInCap(latDeg: number, theta: number, alpha: number): [low: number, high: number] {
  const phi = Math.abs(latDeg * DEG);
  const reach = alpha + (theta + alpha) * 1.01 + 1e-9;
  const low = meridionalRadius(Math.max(0, phi - reach)) * Math.max(0, theta - alpha);
  const high = primeVerticalRadius(Math.min(Math.PI / 2, phi + reach)) * (theta + alpha);
  return [low * (1 - 1e-12), high * (1 + 1e-12)];
}
