-- Up Migration
-- Per-vessel zone state of the maritime processor (presence, dwell timers, fired rungs), checkpointed in
-- the same transaction as the events it caused, so a restart continues the same timers.
CREATE TABLE maritime_vessel_state (
  mmsi         integer PRIMARY KEY,
  state        jsonb NOT NULL,
  last_seen_at timestamptz NOT NULL,
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX maritime_vessel_state_zones_idx ON maritime_vessel_state USING gin ((state->'zones') jsonb_path_ops);

-- Down Migration
DROP TABLE maritime_vessel_state;
