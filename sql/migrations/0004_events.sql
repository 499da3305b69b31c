-- Up Migration
-- Every security event, written by the processor that found it in the same transaction as its state
-- (an outbox): `published_at` is set once the event is on the security.events topic, and unpublished
-- rows are published again after a crash. The id is deterministic, so re-processing upserts nothing new.
CREATE TABLE security_events (
  id              text PRIMARY KEY,
  type            text NOT NULL,
  category        text NOT NULL,
  severity        text NOT NULL,
  occurred_at     timestamptz NOT NULL,
  source_module   text NOT NULL,
  zone            text,
  requires_action boolean NOT NULL,
  incident_id     text,
  body            jsonb NOT NULL,
  search          tsvector GENERATED ALWAYS AS (
                    to_tsvector('simple', coalesce(body->>'title', '') || ' ' || coalesce(body->>'description', ''))
                  ) STORED,
  created_at      timestamptz NOT NULL DEFAULT now(),
  published_at    timestamptz
);
CREATE INDEX security_events_occurred_idx ON security_events (occurred_at DESC);
CREATE INDEX security_events_category_idx ON security_events (category, occurred_at DESC);
CREATE INDEX security_events_zone_idx ON security_events (zone, occurred_at DESC);
CREATE INDEX security_events_search_idx ON security_events USING gin (search);
CREATE INDEX security_events_unpublished_idx ON security_events (created_at) WHERE published_at IS NULL;

-- Down Migration
DROP TABLE security_events;
