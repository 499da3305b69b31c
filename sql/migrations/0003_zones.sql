-- Up Migration
-- Threat zones (spec "Threat zone") and their H3 cover. The
-- statements that write and read these tables are in processors/maritime/zones/zone-sql.ts.
--
-- Exact semantics, shared with the in-memory test (processors/maritime/geometry/zone-shape.ts):
--   Polygon / MultiPolygon: inside = ST_Covers(shape, p); buffer = ST_DWithin(shape, p, buffer_m)
--   Circle:   inside = ST_DWithin(center, p, reach_m);      reach_m = radius_meters
--   Corridor: inside = ST_DWithin(centerline, p, reach_m);  reach_m = width_meters / 2
--   Circle / Corridor buffer = ST_DWithin(center | centerline, p, reach_m + buffer_m)
-- For Circle and Corridor, `shape` is a polygon within 0.1 m inside the exact shape (geodesic circle
-- on WGS84; union of the geodesic capsules around the centerline), for display and analysts; the
-- functions below use the analytic columns.
CREATE TABLE zones (
  id            text PRIMARY KEY DEFAULT gen_random_uuid()::text,
  name          text NOT NULL,
  type          text NOT NULL CHECK (type IN ('exclusion', 'restricted', 'monitoring', 'anchorage')),
  alert_level   text NOT NULL CHECK (alert_level IN ('info', 'low', 'medium', 'high', 'critical')),
  active        boolean NOT NULL DEFAULT true,
  -- The zone as created and validated (schemas/zone.ts): geometry as given, schedule,
  -- authorized_vessels, buffer, dwell. The columns beside it are derived from it.
  definition    jsonb NOT NULL,
  geometry_type text NOT NULL CHECK (geometry_type IN ('Polygon', 'MultiPolygon', 'Circle', 'Corridor')),
  shape         geography(Geometry, 4326) NOT NULL CHECK (GeometryType(shape::geometry) IN ('POLYGON', 'MULTIPOLYGON')),
  center        geography(Point, 4326),
  centerline    geography(LineString, 4326),
  reach_m       double precision,
  -- 0 when the zone has no buffer or its buffer is disabled.
  buffer_m      double precision NOT NULL DEFAULT 0 CHECK (buffer_m >= 0),
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT zones_analytic_parameters CHECK (
       (geometry_type = 'Circle' AND center IS NOT NULL AND centerline IS NULL AND reach_m > 0)
    OR (geometry_type = 'Corridor' AND centerline IS NOT NULL AND center IS NULL AND reach_m > 0)
    OR (geometry_type IN ('Polygon', 'MultiPolygon') AND center IS NULL AND centerline IS NULL AND reach_m IS NULL)
  )
);
CREATE INDEX zones_shape_idx ON zones USING gist (shape);
CREATE INDEX zones_type_idx ON zones (type, active);

-- The H3 cells covering each zone and its buffer (processors/maritime/zones/h3-cover.ts). Cells are
-- res 9, or coarser where a whole parent has one kind:
--   inside   every point of the cell is in the zone
--   buffer   every point is outside the zone and within its buffer distance
--   boundary the exact test decides
-- A position whose res-9 cell (and each parent of it) is absent is neither in the zone nor its buffer.
CREATE TABLE zone_cells (
  zone_id    text NOT NULL REFERENCES zones (id) ON DELETE CASCADE,
  cell       text NOT NULL CHECK (cell ~ '^[0-9a-f]{15,16}$'),
  resolution smallint NOT NULL CHECK (resolution BETWEEN 0 AND 15),
  kind       text NOT NULL CHECK (kind IN ('inside', 'buffer', 'boundary')),
  PRIMARY KEY (zone_id, cell)
);
CREATE INDEX zone_cells_cell_idx ON zone_cells (cell);

-- Whether zone z holds point p (ST_Covers / ST_DWithin semantics above).
CREATE FUNCTION zone_covers(z zones, p geography) RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT CASE z.geometry_type
    WHEN 'Circle' THEN ST_DWithin(z.center, p, z.reach_m)
    WHEN 'Corridor' THEN ST_DWithin(z.centerline, p, z.reach_m)
    ELSE ST_Covers(z.shape, p)
  END
$$;

-- Whether p is within zone z's buffer distance but not in the zone.
CREATE FUNCTION zone_buffer_holds(z zones, p geography) RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT z.buffer_m > 0 AND NOT zone_covers(z, p) AND CASE z.geometry_type
    WHEN 'Circle' THEN ST_DWithin(z.center, p, z.reach_m + z.buffer_m)
    WHEN 'Corridor' THEN ST_DWithin(z.centerline, p, z.reach_m + z.buffer_m)
    ELSE ST_DWithin(z.shape, p, z.buffer_m)
  END
$$;

-- Down Migration
DROP FUNCTION zone_buffer_holds(zones, geography);
DROP FUNCTION zone_covers(zones, geography);
DROP TABLE zone_cells;
DROP TABLE zones;
