import { getResolution } from 'h3-js';
import type { StoredZone } from '../../../schemas/zone.ts';
import { storedShapeOf } from '../geometry/construct.ts';
import { bufferMetersOf } from './zone-index.ts';
import type { ZoneCell } from './h3-cover.ts';

/**
 * Statements for the tables in sql/migrations/0003_zones.sql. Values travel only as parameters; the
 * builders below put them in statement order.
 */
export const UPSERT_ZONE_SQL = `
INSERT INTO zones (id, name, type, alert_level, active, definition, geometry_type, shape, center, centerline,
                   reach_m, buffer_m, created_at, updated_at)
VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, ST_GeomFromGeoJSON($8::text)::geography,
        ST_GeomFromGeoJSON($9::text)::geography, ST_GeomFromGeoJSON($10::text)::geography,
        $11, $12, $13, $14)
ON CONFLICT (id) DO UPDATE SET
  name = EXCLUDED.name, type = EXCLUDED.type, alert_level = EXCLUDED.alert_level, active = EXCLUDED.active,
  definition = EXCLUDED.definition, geometry_type = EXCLUDED.geometry_type, shape = EXCLUDED.shape,
  center = EXCLUDED.center, centerline = EXCLUDED.centerline, reach_m = EXCLUDED.reach_m,
  buffer_m = EXCLUDED.buffer_m, updated_at = EXCLUDED.updated_at`;

export const DELETE_ZONE_CELLS_SQL = 'DELETE FROM zone_cells WHERE zone_id = $1';

export const INSERT_ZONE_CELLS_SQL = `
INSERT INTO zone_cells (zone_id, cell, resolution, kind)
SELECT $1, t.cell, t.resolution, t.kind
FROM unnest($2::text[], $3::smallint[], $4::text[]) AS t(cell, resolution, kind)`;

/**
 * The naive evaluation (one query per position, $1 longitude, $2 latitude): what the in-memory
 * index must agree with, and the baseline of the benchmark. The gist prefilter uses the stored
 * shape, which lies within 0.1 m of the exact one, so one metre more than the largest buffer is safe.
 */
export const LOCATE_POSITION_SQL = `
SELECT z.id, zone_covers(z, p.g) AS inside, zone_buffer_holds(z, p.g) AS in_buffer
FROM (SELECT ST_SetSRID(ST_MakePoint($1, $2), 4326)::geography AS g) AS p
JOIN zones AS z ON ST_DWithin(z.shape, p.g, (SELECT coalesce(max(buffer_m), 0) + 1 FROM zones))
WHERE zone_covers(z, p.g) OR zone_buffer_holds(z, p.g)`;

export function upsertZoneParams(zone: StoredZone): unknown[] {
  const g = zone.geometry;
  const center = g.type === 'Circle' ? JSON.stringify({ type: 'Point', coordinates: g.center }) : null;
  const centerline = g.type === 'Corridor' ? JSON.stringify({ type: 'LineString', coordinates: g.centerline }) : null;
  const reach = g.type === 'Circle' ? g.radius_meters : g.type === 'Corridor' ? g.width_meters / 2 : null;
  return [
    zone.id,
    zone.name,
    zone.type,
    zone.alert_level,
    zone.active,
    JSON.stringify(zone),
    g.type,
    JSON.stringify(storedShapeOf(g)),
    center,
    centerline,
    reach,
    bufferMetersOf(zone),
    zone.created_at,
    zone.updated_at,
  ];
}

export function insertZoneCellsParams(zoneId: string, cells: readonly ZoneCell[]): unknown[] {
  return [zoneId, cells.map((c) => c.cell), cells.map((c) => getResolution(c.cell)), cells.map((c) => c.kind)];
}
