-- Up Migration
-- Incidents (issue 23, item 5; incidents/, docs/response.md "Incidents"): related events grouped under a key over the
-- port's own entities (vessel, container, plate, gate, zone), with a state (open, acknowledged, resolved),
-- an owner, an escalation step and an audit of every change.
--   * incidents: one row per incident; the subject columns hold the first value of each entity seen among
--     its events (the list filters on them); `key` and `reason` say why its events belong together.
--   * incident_events: which events grouping attached to which incident (one incident per event): what makes
--     attaching an event twice a no-op. An event's incident as operators see it is its incident_id (events/triage.ts).
--   * incident_changes: every change, by an operator or by the service itself, with its before and after.
CREATE TABLE incidents (
  -- inc_ + SHA-256 of key and opening event id (incidents/incident-state.ts): a replay finds the same one.
  id                 text PRIMARY KEY,
  key                text NOT NULL,
  reason             text NOT NULL,
  status             text NOT NULL CHECK (status IN ('open', 'acknowledged', 'resolved')),
  severity           text NOT NULL CHECK (severity IN ('low', 'medium', 'high', 'critical')),
  title              text NOT NULL,
  mmsi               bigint,
  zone               text,
  zone_id            text,
  gate_id            text,
  container_id       text,
  plate              text,
  location           jsonb NOT NULL DEFAULT '{}',
  opening_event_id   text NOT NULL,
  event_count        integer NOT NULL CHECK (event_count >= 0),
  first_event_at     timestamptz NOT NULL,
  last_event_at      timestamptz NOT NULL,
  opened_at          timestamptz NOT NULL,
  acknowledged_at    timestamptz,
  acknowledged_by    text,
  resolved_at        timestamptz,
  resolved_by        text,
  resolution_reason  text,
  assigned_to        text NOT NULL DEFAULT '',
  escalation_step    integer NOT NULL DEFAULT 0 CHECK (escalation_step >= 0),
  next_escalation_at timestamptz,
  reopen_count       integer NOT NULL DEFAULT 0,
  notes              jsonb NOT NULL DEFAULT '[]',
  merged_into        text REFERENCES incidents (id),
  revision           integer NOT NULL CHECK (revision >= 1),
  updated_at         timestamptz NOT NULL
);
-- Grouping: the newest incident of a key.
CREATE INDEX incidents_key_idx ON incidents (key, last_event_at DESC);
-- The ack-timeout sweep reads the due ones only.
CREATE INDEX incidents_escalation_idx ON incidents (next_escalation_at) WHERE status = 'open' AND next_escalation_at IS NOT NULL;
-- GET /v1/incidents: the default sort, and each filter ending in the sort's time (as migration 0011 does for events).
CREATE INDEX incidents_opened_idx ON incidents (opened_at, id);
CREATE INDEX incidents_rank_idx ON incidents (event_severity_rank(severity), opened_at, id);
CREATE INDEX incidents_status_idx ON incidents (status, opened_at, id);
CREATE INDEX incidents_mmsi_idx ON incidents (mmsi, opened_at) WHERE mmsi IS NOT NULL;
CREATE INDEX incidents_zone_idx ON incidents (lower(zone), opened_at) WHERE zone IS NOT NULL;
CREATE INDEX incidents_zone_id_idx ON incidents (zone_id, opened_at) WHERE zone_id IS NOT NULL;
CREATE INDEX incidents_gate_idx ON incidents (gate_id, opened_at) WHERE gate_id IS NOT NULL;
CREATE INDEX incidents_container_idx ON incidents (container_id, opened_at) WHERE container_id IS NOT NULL;
CREATE INDEX incidents_plate_idx ON incidents (plate, opened_at) WHERE plate IS NOT NULL;
CREATE INDEX incidents_merged_into_idx ON incidents (merged_into) WHERE merged_into IS NOT NULL;

CREATE TABLE incident_events (
  event_id    text PRIMARY KEY REFERENCES security_events (id) ON DELETE CASCADE,
  incident_id text NOT NULL REFERENCES incidents (id),
  attached_at timestamptz NOT NULL
);
CREATE INDEX incident_events_incident_idx ON incident_events (incident_id);

CREATE TABLE incident_changes (
  incident_id   text NOT NULL REFERENCES incidents (id),
  -- The incident's revision after this change.
  revision      integer NOT NULL CHECK (revision >= 1),
  changed_at    timestamptz NOT NULL,
  -- opened, event_attached, reopened, acknowledged, assigned, note_added, resolved, escalated, merged, merged_from.
  action        text NOT NULL,
  -- As event_changes: the credential and whom it stands for; 'system' for the service's own changes.
  credential_id text NOT NULL,
  principal     text NOT NULL,
  auth_kind     text NOT NULL CHECK (auth_kind IN ('api_key', 'oauth', 'system')),
  -- The event that was attached, when one was.
  event_id      text,
  -- The fields this change changed, before and after.
  before        jsonb NOT NULL,
  after         jsonb NOT NULL,
  PRIMARY KEY (incident_id, revision)
);

-- Grouping sets an event's incident_id through the operators' path (events/triage.ts), as the service.
ALTER TABLE event_changes DROP CONSTRAINT event_changes_auth_kind_check;
ALTER TABLE event_changes ADD CONSTRAINT event_changes_auth_kind_check CHECK (auth_kind IN ('api_key', 'oauth', 'system'));

-- A gate event names a container; grouping finds the vessel it is booked on (the appointment's
-- vessel_mmsi or vessel_imo, schemas/gate-appointment.ts), and the MMSI of a vessel known by IMO only.
-- The container as grouping compares it (incidents/grouping.ts normalizeId): upper case, no spaces, dots or dashes.
CREATE INDEX gate_appointments_vessel_container_idx ON gate_appointments ((regexp_replace(upper(body->>'container_id'), '[[:space:].-]', '', 'g')), updated_at)
  WHERE body ? 'vessel_mmsi' OR body ? 'vessel_imo';
CREATE INDEX vessels_imo_idx ON vessels (imo) WHERE imo IS NOT NULL;

-- Down Migration
DROP INDEX vessels_imo_idx;
DROP INDEX gate_appointments_vessel_container_idx;
DELETE FROM event_changes WHERE auth_kind = 'system';
ALTER TABLE event_changes DROP CONSTRAINT event_changes_auth_kind_check;
ALTER TABLE event_changes ADD CONSTRAINT event_changes_auth_kind_check CHECK (auth_kind IN ('api_key', 'oauth'));
DROP TABLE incident_changes;
DROP TABLE incident_events;
DROP TABLE incidents;
