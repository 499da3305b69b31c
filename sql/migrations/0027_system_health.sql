-- Up Migration
-- The health model (issue 25, docs/operations.md). Each instance writes its own view of every component
-- it checks, with an expiry: a crashed instance's rows stop counting when they expire and are deleted by
-- the next report of any instance.
CREATE TABLE health_reports (
  instance_id text NOT NULL,
  component text NOT NULL,
  status text NOT NULL CHECK (status IN ('ok', 'degraded', 'down')),
  since timestamptz NOT NULL,
  reason text NOT NULL DEFAULT '',
  roles text[] NOT NULL DEFAULT '{}',
  reported_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (instance_id, component)
);
CREATE INDEX health_reports_expires_idx ON health_reports (expires_at);

-- The service's agreed status of each component across instances: what the last system_health_change
-- said (seq numbers the transitions), and the status that differs from it and since when (debounce).
CREATE TABLE health_components (
  component text PRIMARY KEY,
  status text NOT NULL CHECK (status IN ('ok', 'degraded', 'down')),
  since timestamptz NOT NULL,
  reason text NOT NULL DEFAULT '',
  seq integer NOT NULL DEFAULT 0,
  pending_status text CHECK (pending_status IN ('ok', 'degraded', 'down')),
  pending_since timestamptz
);

-- One row per transition, written in the same transaction as its system_health_change event: the
-- primary key makes "once per transition across instances" a constraint, not a hope.
CREATE TABLE health_transitions (
  component text NOT NULL,
  seq integer NOT NULL,
  from_status text NOT NULL,
  to_status text NOT NULL,
  at timestamptz NOT NULL,
  event_id text NOT NULL,
  PRIMARY KEY (component, seq)
);

-- Outages of ingest feeds (an AIS source, a gate lane), written by the ingest instance that watches the
-- feed and read by the zone processors (every worker and instance), so the AIS-gap rule does not count
-- the vessels of a silent feed as dark. resumed_at is null while the feed is still silent.
CREATE TABLE feed_outages (
  feed text NOT NULL,
  silent_from timestamptz NOT NULL,
  detected_at timestamptz NOT NULL DEFAULT now(),
  resumed_at timestamptz,
  PRIMARY KEY (feed, silent_from)
);
CREATE INDEX feed_outages_recent_idx ON feed_outages (silent_from DESC);

-- Down Migration
DROP TABLE feed_outages;
DROP TABLE health_transitions;
DROP TABLE health_components;
DROP TABLE health_reports;
