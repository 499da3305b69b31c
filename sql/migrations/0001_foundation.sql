-- Up Migration
CREATE EXTENSION IF NOT EXISTS postgis;

-- Vessels as last seen, for analysts and for enriching events (name, type) in every instance.
CREATE TABLE vessels (
  mmsi          integer PRIMARY KEY,
  name          text,
  callsign      text,
  imo           integer,
  ship_type     integer,
  category      text,
  last_position geography(Point, 4326),
  last_report_at timestamptz,
  updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX vessels_last_position_idx ON vessels USING gist (last_position);

-- Down Migration
DROP TABLE vessels;
