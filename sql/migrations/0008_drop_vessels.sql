-- Up Migration
-- The `vessels` table of 0001 never got a writer: the processors keep static data in memory from the
-- compacted ais.static topic (processors/maritime/vessel-directory.ts), and positions live on Kafka.
-- A table nobody fills would mislead analysts, so it goes until a vessel sink exists to keep it true.
DROP TABLE vessels;

-- Down Migration
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
