// A zone's buffer as the map draws it (docs/console.md "Map"): a light band reaching `distance_meters` out from
// the zone's edge and a dashed line at that distance. Both are lines along the zone's edge moved outwards by
// MapLibre's `line-offset` (positive is right of the line's direction), so rings are turned to put the
// outside on the right: exterior rings counter-clockwise, holes clockwise. Widths and offsets are in pixels
// at zoom 0, which the style doubles per zoom level, as for corridors. Pure.
import { circlePolygon, metresPerPixelAtZoom0, type Position, type ZoneGeometry } from './geometry.ts';

export interface ZoneBuffer {
  enabled?: boolean;
  distance_meters: number;
}

type Ring = Position[];

/** Twice the signed area in degrees: positive when the ring runs counter-clockwise (north up). */
function signedArea(ring: Ring): number {
  let sum = 0;
  for (let i = 0; i + 1 < ring.length; i++) {
    const [x1, y1] = ring[i] as Position;
    const [x2, y2] = ring[i + 1] as Position;
    sum += x1 * y2 - x2 * y1;
  }
  return sum;
}

/** The ring running the way that puts the zone's outside on its right. */
export function outwardRing(ring: Ring, hole: boolean): Ring {
  const counterClockwise = signedArea(ring) > 0;
  return counterClockwise === hole ? [...ring].reverse() : ring;
}

function rings(g: ZoneGeometry): Ring[] {
  switch (g.type) {
    case 'Circle':
      return [outwardRing(circlePolygon(g.center as Position, g.radius_meters as number), false)];
    case 'Polygon':
      return (g.coordinates as Ring[]).map((r, i) => outwardRing(r, i > 0));
    case 'MultiPolygon':
      return (g.coordinates as Ring[][]).flatMap((p) => p.map((r, i) => outwardRing(r, i > 0)));
    default:
      return [];
  }
}

/** The band and dashed-edge features of a zone's buffer; none when it has no buffer or it is disabled. */
export function bufferFeatures(zone: { id: string; alert_level: string; geometry: ZoneGeometry; buffer?: ZoneBuffer | null }): GeoJSON.Feature[] {
  const buffer = zone.buffer;
  if (!buffer || buffer.enabled === false || !(buffer.distance_meters > 0)) return [];
  const g = zone.geometry;
  const base = { id: zone.id, alert_level: zone.alert_level };
  if (g.type === 'Corridor') {
    const line = g.centerline as Position[];
    const mpp0 = metresPerPixelAtZoom0(line[0]?.[1] ?? 0);
    const reach = ((g.width_meters as number) / 2 + buffer.distance_meters) / mpp0;
    const geometry: GeoJSON.LineString = { type: 'LineString', coordinates: line };
    return [
      { type: 'Feature', properties: { ...base, kind: 'band', width_px0: 2 * reach, offset_px0: 0 }, geometry },
      { type: 'Feature', properties: { ...base, kind: 'edge', offset_px0: reach }, geometry },
      { type: 'Feature', properties: { ...base, kind: 'edge', offset_px0: -reach }, geometry },
    ];
  }
  const all = rings(g);
  const mpp0 = metresPerPixelAtZoom0(all[0]?.[0]?.[1] ?? 0);
  const d = buffer.distance_meters / mpp0;
  const geometry: GeoJSON.MultiLineString = { type: 'MultiLineString', coordinates: all };
  return [
    { type: 'Feature', properties: { ...base, kind: 'band', width_px0: d, offset_px0: d / 2 }, geometry },
    { type: 'Feature', properties: { ...base, kind: 'edge', offset_px0: d }, geometry },
  ];
}
