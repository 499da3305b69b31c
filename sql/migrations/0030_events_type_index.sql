-- Up Migration
-- GET /v1/events?type= (issue 33): like every other filter of the list (migration 0011), one index range
-- read ending in the event time, so a type and the time window are read in sort order and counted from the
-- index alone. Without it the window is read through the time index and every event in it visited to
-- check its type: the whole 24-hour default window (33,000 events in the events-query corpus) for a rare
-- type, the whole month when the window is wide.
CREATE INDEX security_events_type_idx ON security_events (type, occurred_at);

-- Down Migration
DROP INDEX security_events_type_idx;
