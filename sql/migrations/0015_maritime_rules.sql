-- Up Migration
-- Maritime rules beyond zones (issue 12). Written by processors/maritime/rules-config/rule-store.ts,
-- read by every processor instance (zones/zone-catalog.ts reloads them with the zones on NOTIFY).

-- One zone's speed, AIS, vessel type and time rules (schemas/maritime-rules.ts zoneRuleSetSchema,
-- without `zone`: the row names it). Deleting the zone deletes its rules.
CREATE TABLE maritime_zone_rules (
  zone_id    text PRIMARY KEY REFERENCES zones (id) ON DELETE CASCADE,
  rules      jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Site-wide settings in the spec's structures; today only `dwell_time` (key 'dwell_time').
CREATE TABLE maritime_site_rules (
  key        text PRIMARY KEY CHECK (key IN ('dwell_time')),
  value      jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Time rules: occupancy per zone counted across every processor instance. Vessels are partitioned by
-- MMSI, so no instance sees all vessels of a zone; each writes the rows of its own vessels in the
-- same transaction as their state, and decides on the alert while holding the zone's alert rows
-- locked (FOR UPDATE), so two instances never both raise (or both miss) the same crossing.
CREATE TABLE maritime_zone_occupancy (
  zone_id    text NOT NULL REFERENCES zones (id) ON DELETE CASCADE,
  mmsi       integer NOT NULL,
  entered_at timestamptz NOT NULL,
  PRIMARY KEY (zone_id, mmsi)
);

CREATE TABLE maritime_occupancy_alerts (
  zone_id       text NOT NULL REFERENCES zones (id) ON DELETE CASCADE,
  schedule_name text NOT NULL,
  -- Set while occupancy exceeds max_vessels (an alert was raised); cleared when it no longer does.
  exceeded_at   timestamptz,
  PRIMARY KEY (zone_id, schedule_name)
);

-- Down Migration
DROP TABLE maritime_occupancy_alerts;
DROP TABLE maritime_zone_occupancy;
DROP TABLE maritime_site_rules;
DROP TABLE maritime_zone_rules;
