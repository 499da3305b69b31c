-- Up Migration
-- What the events API (api/events/, events/event-list.ts) needs from the event store, issue 10:
--   1. an index for every filter of GET /v1/events, each ending in the event time so a filter plus the
--      time window (always present: 24 hours by default) is one index range read in sort order;
--   2. the severity-rank sort (critical > high > medium > low, ties by time) as an index;
--   3. full-text search in English (stemmed: "breaches" finds "breach") and 'simple' (names, ids and
--      English stop words as written: "Crown of Scandinavia", "219592000", "MSCU1234565");
--   4. every operator change kept (event_changes), its revision on the triage row, and whether an outbox
--      entry publishes a new event or an update of one (the `change` and `revision` record headers);
--   5. an index on the storing time for retention (PSS_EVENT_RETENTION_DAYS, events/retention.ts).
-- security_events stays insert-only (the processor's write path pays for each index on insert only).

-- The sort rank of a severity; used by the sort, the severity filter and their index alike.
CREATE FUNCTION event_severity_rank(severity text) RETURNS smallint
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT (CASE severity WHEN 'critical' THEN 4 WHEN 'high' THEN 3 WHEN 'medium' THEN 2 WHEN 'low' THEN 1 END)::smallint
$$;

-- The query of GET /v1/events?search=: every word must match, in English (stemmed: "breaches" finds
-- "breach") or as written ('simple': names, ids, stop words). The last word also matches as a word's
-- beginning ("crown scand" finds "Crown of Scandinavia"), as search-as-you-type boxes do (Algolia's
-- prefixLast), when it is a plain word of 3 or more letters or digits: a prefix match reads every index
-- entry it covers, which for earlier words or a one-digit prefix costs far more than it finds. The API
-- splits the search into words (events/event-filter.ts) and passes them as an array, never as query text.
CREATE FUNCTION event_search_query(words text[]) RETURNS tsquery
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  q tsquery;
  word text;
  operand text;
  stemmed tsquery;
  written tsquery;
  one tsquery;
BEGIN
  FOR i IN 1 .. coalesce(array_length(words, 1), 0) LOOP
    word := words[i];
    operand := quote_literal(word)
      || CASE WHEN i = array_length(words, 1) AND char_length(word) >= 3 AND word !~ '[._-]' THEN ':*' ELSE '' END;
    -- quote_literal makes the word one operand. to_tsquery('english') of a stop word is empty, and
    -- `empty || x` is x, so "of" still finds "Crown of Scandinavia" through 'simple'. A word whose stem is
    -- itself ("crown") is looked up once, not twice.
    stemmed := to_tsquery('english', operand);
    written := to_tsquery('simple', operand);
    one := CASE WHEN stemmed = written THEN written ELSE stemmed || written END;
    q := CASE WHEN q IS NULL THEN one ELSE q && one END;
  END LOOP;
  RETURN coalesce(q, ''::tsquery);
END
$$;

DROP VIEW security_events_current;
-- The stored tsvector now holds both configurations (it was 'simple' alone). Rewrites the table once.
ALTER TABLE security_events DROP COLUMN search;
ALTER TABLE security_events ADD COLUMN search tsvector GENERATED ALWAYS AS (
  to_tsvector('english', coalesce(body->>'title', '') || ' ' || coalesce(body->>'description', ''))
  || to_tsvector('simple', coalesce(body->>'title', '') || ' ' || coalesce(body->>'description', ''))
) STORED;
CREATE INDEX security_events_search_idx ON security_events USING gin (search);

-- Time order with the id as tie-breaker: the default sort, and stable pages among equal timestamps.
-- requires_action rides along (it fits in the entry's padding), so counting a window by it reads no table rows.
DROP INDEX security_events_occurred_idx;
CREATE INDEX security_events_time_idx ON security_events (occurred_at, id) INCLUDE (requires_action);
-- (category, occurred_at DESC) from 0004 stays.
-- INCLUDE (severity): PostgreSQL reads an expression index without the table only when it holds the
-- column the expression is computed from, and counting a severity filter should not read the table.
CREATE INDEX security_events_rank_idx ON security_events (event_severity_rank(severity), occurred_at, id) INCLUDE (severity);
CREATE INDEX security_events_source_module_idx ON security_events (source_module, occurred_at);
-- `zone` is a zone name or id: names case-insensitively (threat zone names are unique that way), ids
-- through the zone id an event carries in metadata (the maritime processor's metadata.zone_id).
DROP INDEX security_events_zone_idx;
CREATE INDEX security_events_zone_idx ON security_events (lower(zone), occurred_at) WHERE zone IS NOT NULL;
CREATE INDEX security_events_zone_id_idx ON security_events ((body->'metadata'->>'zone_id'), occurred_at)
  WHERE body->'metadata'->>'zone_id' IS NOT NULL;
-- The operator fields as stored; what operators changed since is in event_triage (indexed below and in 0010).
CREATE INDEX security_events_incident_idx ON security_events (incident_id) WHERE incident_id IS NOT NULL;
CREATE INDEX security_events_assigned_idx ON security_events ((body->>'assigned_to')) WHERE body->>'assigned_to' <> '';
-- Retention deletes by storing time; rows are appended in that order, so a BRIN index is tiny and cheap.
CREATE INDEX security_events_created_idx ON security_events USING brin (created_at);

CREATE INDEX event_triage_assigned_idx ON event_triage (assigned_to) WHERE assigned_to <> '';
-- How many operator changes the triage row holds; the history row of each is in event_changes.
ALTER TABLE event_triage ADD COLUMN revision integer NOT NULL DEFAULT 1 CHECK (revision >= 1);

-- Every operator change (PATCH /v1/events/{id}): who, when, the three fields before and after. Kept as
-- long as its event (retention deletes both).
CREATE TABLE event_changes (
  event_id      text NOT NULL REFERENCES security_events (id) ON DELETE CASCADE,
  revision      integer NOT NULL CHECK (revision >= 1),
  changed_at    timestamptz NOT NULL DEFAULT now(),
  -- The credential (API key id, or OAuth access-token id), its kind, and whom it stands for (the key's
  -- name, or the operator's username).
  credential_id text NOT NULL,
  principal     text NOT NULL,
  auth_kind     text NOT NULL CHECK (auth_kind IN ('api_key', 'oauth')),
  before        jsonb NOT NULL,
  after         jsonb NOT NULL,
  PRIMARY KEY (event_id, revision)
);

-- Whether an outbox entry publishes a new event or an operator's change of a published one.
ALTER TABLE event_outbox ADD COLUMN change text NOT NULL DEFAULT 'created' CHECK (change IN ('created', 'updated'));

CREATE VIEW security_events_current AS
SELECT e.id, e.type, e.category, e.severity, e.occurred_at, e.source_module, e.zone,
       CASE WHEN t.event_id IS NULL THEN e.requires_action ELSE t.requires_action END AS requires_action,
       CASE WHEN t.event_id IS NULL THEN e.body->>'assigned_to' ELSE t.assigned_to END AS assigned_to,
       CASE WHEN t.event_id IS NULL THEN e.incident_id ELSE t.incident_id END AS incident_id,
       CASE WHEN t.event_id IS NULL THEN e.body
            ELSE e.body || jsonb_build_object('requires_action', t.requires_action, 'assigned_to', t.assigned_to, 'incident_id', t.incident_id)
       END AS body,
       e.search, e.created_at, t.updated_at AS triaged_at, t.updated_by AS triaged_by,
       -- Added here: how many operator changes the event has had, and the zone id it carries (indexed above).
       coalesce(t.revision, 0) AS revision, e.body->'metadata'->>'zone_id' AS zone_id
  FROM security_events AS e
  LEFT JOIN event_triage AS t ON t.event_id = e.id;

-- Down Migration
DROP VIEW security_events_current;
ALTER TABLE event_outbox DROP COLUMN change;
DROP TABLE event_changes;
ALTER TABLE event_triage DROP COLUMN revision;
DROP INDEX event_triage_assigned_idx;
DROP INDEX security_events_created_idx;
DROP INDEX security_events_assigned_idx;
DROP INDEX security_events_incident_idx;
DROP INDEX security_events_zone_id_idx;
DROP INDEX security_events_zone_idx;
CREATE INDEX security_events_zone_idx ON security_events (zone, occurred_at DESC);
DROP INDEX security_events_source_module_idx;
DROP INDEX security_events_rank_idx;
DROP INDEX security_events_time_idx;
CREATE INDEX security_events_occurred_idx ON security_events (occurred_at DESC);
ALTER TABLE security_events DROP COLUMN search;
ALTER TABLE security_events ADD COLUMN search tsvector GENERATED ALWAYS AS (
  to_tsvector('simple', coalesce(body->>'title', '') || ' ' || coalesce(body->>'description', ''))
) STORED;
CREATE INDEX security_events_search_idx ON security_events USING gin (search);
CREATE VIEW security_events_current AS
SELECT e.id, e.type, e.category, e.severity, e.occurred_at, e.source_module, e.zone,
       CASE WHEN t.event_id IS NULL THEN e.requires_action ELSE t.requires_action END AS requires_action,
       CASE WHEN t.event_id IS NULL THEN e.body->>'assigned_to' ELSE t.assigned_to END AS assigned_to,
       CASE WHEN t.event_id IS NULL THEN e.incident_id ELSE t.incident_id END AS incident_id,
       CASE WHEN t.event_id IS NULL THEN e.body
            ELSE e.body || jsonb_build_object('requires_action', t.requires_action, 'assigned_to', t.assigned_to, 'incident_id', t.incident_id)
       END AS body,
       e.search, e.created_at, t.updated_at AS triaged_at, t.updated_by AS triaged_by
  FROM security_events AS e
  LEFT JOIN event_triage AS t ON t.event_id = e.id;
DROP FUNCTION event_search_query(text[]);
DROP FUNCTION event_severity_rank(text);
