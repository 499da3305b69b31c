-- Up Migration
-- The relay (events/relay.ts) publishes the outbox in the order events were stored. `created_at` is the
-- storing transaction's start time, the same for every event of a batch, so it cannot keep a batch in
-- order; an identity column numbered in insert order can, and its index gives the relay its oldest rows.
ALTER TABLE event_outbox ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY;
CREATE UNIQUE INDEX event_outbox_seq_idx ON event_outbox (seq);

-- Down Migration
ALTER TABLE event_outbox DROP COLUMN seq;
