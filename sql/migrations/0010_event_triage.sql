-- Up Migration
-- What operators change on an event (spec "Event": requires_action, assigned_to, incident_id) lives beside
-- the insert-only security_events, one row per event that has been changed, holding all three fields as
-- they are now (so an empty assigned_to or a null incident_id is an answer, not "unchanged"; unassigned
-- is '', as in the event body, docs/zones-and-rules.md, decision 13). The stored body stays
-- the event as its module found it; security_events_current merges the two, and the relay publishes that.
CREATE TABLE event_triage (
  event_id        text PRIMARY KEY REFERENCES security_events (id) ON DELETE CASCADE,
  requires_action boolean NOT NULL,
  assigned_to     text NOT NULL DEFAULT '',
  incident_id     text,
  updated_at      timestamptz NOT NULL DEFAULT now(),
  updated_by      text NOT NULL
);
-- "Events of one incident": incidents are assigned by operators, so they are found here, not in the body.
CREATE INDEX event_triage_incident_idx ON event_triage (incident_id) WHERE incident_id IS NOT NULL;

-- Each event as operators see it now: the stored columns and body, with the triage row's fields when there is one.
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

-- Down Migration
DROP VIEW security_events_current;
DROP TABLE event_triage;
