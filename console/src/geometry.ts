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
