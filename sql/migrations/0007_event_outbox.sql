-- Up Migration
-- The outbox moves out of security_events into its own small table. Marking an event published used to
-- UPDATE its security_events row, and since published_at was indexed every mark rewrote the row's
-- entries in all six indexes (full-text GIN included): about a tenth of the processor's batch time.
-- Now security_events is insert-only, and a publish deletes one row from a table with one index.
CREATE TABLE event_outbox (
  event_id      text PRIMARY KEY REFERENCES security_events (id) ON DELETE CASCADE,
  source_module text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
);
INSERT INTO event_outbox (event_id, source_module, created_at)
  SELECT id, source_module, created_at FROM security_events WHERE published_at IS NULL;
DROP INDEX security_events_unpublished_idx;
ALTER TABLE security_events DROP COLUMN published_at;

-- Down Migration
ALTER TABLE security_events ADD COLUMN published_at timestamptz;
UPDATE security_events AS e SET published_at = e.created_at
 WHERE NOT EXISTS (SELECT 1 FROM event_outbox AS o WHERE o.event_id = e.id);
CREATE INDEX security_events_unpublished_idx ON security_events (created_at) WHERE published_at IS NULL;
DROP TABLE event_outbox;
