-- Up Migration
-- Encounter rules (beyond the spec; processors/maritime/store/encounter-store.ts). Vessels are
-- partitioned by MMSI across processor instances, so the two vessels of an encounter may be owned by
-- different instances: each instance writes its own slow vessels' latest fixes here, in the batch's
-- transaction, and finds neighbours among everyone's rows.

-- The latest fix under the zone's encounter speed limit of each vessel inside a zone with an encounter
-- rule; deleted when the vessel speeds up or leaves the zone. Only such vessels are ever written.
CREATE TABLE maritime_encounter_fixes (
  zone_id     text NOT NULL REFERENCES zones (id) ON DELETE CASCADE,
  mmsi        integer NOT NULL,
  reported_at timestamptz NOT NULL,
  lat         double precision NOT NULL,
  lon         double precision NOT NULL,
  geog        geography(Point, 4326) NOT NULL,
  PRIMARY KEY (zone_id, mmsi)
);
CREATE INDEX maritime_encounter_fixes_geog ON maritime_encounter_fixes USING gist (geog);

-- One row per pair of vessels that have been close in a zone (mmsi_lo < mmsi_hi), holding the current or
-- last episode. Locked FOR UPDATE (in key order) by the instance deciding on it, so exactly one instance
-- emits; `last_at` only moves forward, so a replayed batch decides nothing twice.
CREATE TABLE maritime_encounter_pairs (
  zone_id       text NOT NULL REFERENCES zones (id) ON DELETE CASCADE,
  mmsi_lo       integer NOT NULL,
  mmsi_hi       integer NOT NULL CHECK (mmsi_lo < mmsi_hi),
  open          boolean NOT NULL,
  since         timestamptz NOT NULL,
  last_close_at timestamptz NOT NULL,
  last_at       timestamptz NOT NULL,
  closest_m     double precision NOT NULL,
  fired         boolean NOT NULL,
  PRIMARY KEY (zone_id, mmsi_lo, mmsi_hi)
);
CREATE INDEX maritime_encounter_pairs_open_lo ON maritime_encounter_pairs (mmsi_lo) WHERE open;
CREATE INDEX maritime_encounter_pairs_open_hi ON maritime_encounter_pairs (mmsi_hi) WHERE open;

-- Down Migration
DROP TABLE maritime_encounter_pairs;
DROP TABLE maritime_encounter_fixes;
