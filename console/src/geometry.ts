// Zone geometries as the map draws them (docs/console.md "Map"): circles become polygons, corridors lines
// whose width in pixels follows the zoom so it stays width_meters on the ground. Pure.
export type Position = [number, number];
export interface ZoneGeometry {
  type: 'Polygon' | 'MultiPolygon' | 'Circle' | 'Corridor';
  coordinates?: unknown;
  center?: Position;
  radius_meters?: number;
  centerline?: Position[];
  width_meters?: number;
}

const EARTH_RADIUS_M = 6_371_008.8;

/** A circle as a 64-sided polygon (a local equirectangular projection about its centre: exact enough for a port). */
export function circlePolygon(center: Position, radiusMeters: number, sides = 64): Position[] {
  const [lon, lat] = center;
  const dLat = (radiusMeters / EARTH_RADIUS_M) * (180 / Math.PI);
  const dLon = dLat / Math.cos((lat * Math.PI) / 180);
  const ring: Position[] = [];
  for (let i = 0; i <= sides; i++) {
    const a = (2 * Math.PI * i) / sides;
    ring.push([lon + dLon * Math.sin(a), lat + dLat * Math.cos(a)]);
  }
  return ring;
}

/** Metres a screen pixel covers at zoom 0 at this latitude (512-pixel tiles). */
export function metresPerPixelAtZoom0(lat: number): number {
  return (2 * Math.PI * 6_378_137 * Math.cos((lat * Math.PI) / 180)) / 512;
}

/** GeoJSON features for one zone: its area (fill and outline) or its corridor line. */
export function zoneFeatures(zone: { id: string; name: string; type: string; alert_level: string; geometry: ZoneGeometry; active?: boolean }): GeoJSON.Feature[] {
  const properties = { id: zone.id, name: zone.name, zone_type: zone.type, alert_level: zone.alert_level, shape: zone.geometry.type };
  const g = zone.geometry;
  switch (g.type) {
    case 'Polygon':
    case 'MultiPolygon':
      return [{ type: 'Feature', properties, geometry: { type: g.type, coordinates: g.coordinates } as GeoJSON.Geometry }];
    case 'Circle':
      return [{ type: 'Feature', properties, geometry: { type: 'Polygon', coordinates: [circlePolygon(g.center as Position, g.radius_meters as number)] } }];
    case 'Corridor': {
      const line = g.centerline as Position[];
      const mpp0 = metresPerPixelAtZoom0(line[0]?.[1] ?? 0);
      return [{ type: 'Feature', properties: { ...properties, width_px0: (g.width_meters as number) / mpp0 }, geometry: { type: 'LineString', coordinates: line } }];
    }
  }
}

/** Every position of a zone's drawn features (circles as their polygon). */
function positionsOf(features: GeoJSON.Feature[]): Position[] {
  const out: Position[] = [];
  const walk = (c: unknown): void => {
    if (Array.isArray(c) && typeof c[0] === 'number') out.push(c as Position);
    else if (Array.isArray(c)) c.forEach(walk);
  };
  for (const f of features) walk((f.geometry as { coordinates?: unknown }).coordinates);
  return out;
}

/** [west, south, east, north] of the zones, or null without any; a corridor's width and buffers are left out. */
export function zonesBounds(zones: Parameters<typeof zoneFeatures>[0][]): [number, number, number, number] | null {
  let [w, s, e, n] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const z of zones) {
    for (const [x, y] of positionsOf(zoneFeatures(z))) {
      if (x < w) w = x;
      if (x > e) e = x;
      if (y < s) s = y;
      if (y > n) n = y;
    }
  }
  return Number.isFinite(w) ? [w, s, e, n] : null;
}

/**
 * Where a zone's name goes: a circle's centre, a corridor's middle point, else the middle of the polygon's box
 * moved onto its nearest vertex when the box's middle is outside it (an L-shaped berth), so a name never
 * floats over another zone's water.
 */
export function zoneLabelPoint(zone: Parameters<typeof zoneFeatures>[0]): Position | null {
  const g = zone.geometry;
  if (g.type === 'Circle') return g.center ?? null;
  if (g.type === 'Corridor') {
    const line = g.centerline ?? [];
    if (line.length % 2 === 1) return line[(line.length - 1) / 2] as Position;
    return midpoint(line[line.length / 2 - 1], line[line.length / 2]);
  }
  const rings = g.type === 'Polygon' ? [(g.coordinates as Position[][])[0] ?? []] : ((g.coordinates as Position[][][]) ?? []).map((p) => p[0] ?? []);
  const outer = rings.reduce((a, r) => (r.length > a.length ? r : a), [] as Position[]);
  if (outer.length === 0) return null;
  const xs = outer.map((p) => p[0]);
  const ys = outer.map((p) => p[1]);
  const centre: Position = [(Math.min(...xs) + Math.max(...xs)) / 2, (Math.min(...ys) + Math.max(...ys)) / 2];
  if (insideRing(centre, outer)) return centre;
  return outer.reduce((best, p) => (Math.hypot(p[0] - centre[0], p[1] - centre[1]) < Math.hypot(best[0] - centre[0], best[1] - centre[1]) ? p : best), outer[0] as Position);
}

function midpoint(a: Position | undefined, b: Position | undefined): Position | null {
  return a && b ? [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2] : (a ?? b ?? null);
}

function insideRing([x, y]: Position, ring: Position[]): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i] as Position;
    const [xj, yj] = ring[j] as Position;
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}
