-- Up Migration
-- Drone missions (issue 24, drones/, docs/drones.md).
-- drones: the fleet as its telemetry (drone.telemetry) last described it; a drone is known from its first
--   telemetry record. lost_link_at / low_battery_at mark the episode an event was raised for (raised once,
--   cleared when telemetry comes back / the battery is charged again).
CREATE TABLE drones (
  id               text PRIMARY KEY,
  dock_id          text,
  state            text NOT NULL,
  battery_percent  double precision NOT NULL,
  lon              double precision NOT NULL,
  lat              double precision NOT NULL,
  altitude_m       double precision NOT NULL DEFAULT 0,
  link             text NOT NULL,
  speed_mps        double precision,
  mission_id       text,
  last_seen        timestamptz NOT NULL,
  lost_link_at     timestamptz,
  low_battery_at   timestamptz,
  updated_at       timestamptz NOT NULL DEFAULT now()
);

-- drone_missions: one row per mission; `timeline` keeps every applied and refused report in order.
--   subject      what the mission is about (vessel:<mmsi>, zone:<name>, event:<id>): one incident never has
--                two active missions for one subject (the partial unique index).
--   deadline_at  when a mission waiting in requested (no drone) or for the fleet's acknowledgement times out.
CREATE TABLE drone_missions (
  id                   text PRIMARY KEY,
  kind                 text NOT NULL,
  status               text NOT NULL,
  target               jsonb NOT NULL,
  subject              text NOT NULL,
  incident_id          text,
  event_id             text,
  action_id            text,
  drone_id             text,
  dock_id              text,
  priority             text NOT NULL DEFAULT 'automatic',
  mmsi                 integer,
  requested_by         text NOT NULL,
  idempotency_key      text,
  created_at           timestamptz NOT NULL,
  updated_at           timestamptz NOT NULL,
  deadline_at          timestamptz,
  launched_at          timestamptz,
  finished_at          timestamptz,
  eta_seconds          double precision,
  remaining_distance_m double precision,
  battery_percent      double precision,
  reason               text,
  launch_attempts      integer NOT NULL DEFAULT 0,
  evidence             jsonb NOT NULL DEFAULT '[]'::jsonb,
  timeline             jsonb NOT NULL DEFAULT '[]'::jsonb,
  contradictions       integer NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX drone_missions_one_per_subject_idx ON drone_missions (incident_id, subject)
  WHERE incident_id IS NOT NULL AND status IN ('requested', 'accepted', 'launched', 'on_station', 'returning');
CREATE UNIQUE INDEX drone_missions_idempotency_idx ON drone_missions (requested_by, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX drone_missions_created_idx ON drone_missions (created_at DESC, id);
CREATE INDEX drone_missions_active_idx ON drone_missions (status) WHERE status IN ('requested', 'accepted', 'launched', 'on_station', 'returning');
CREATE INDEX drone_missions_incident_idx ON drone_missions (incident_id) WHERE incident_id IS NOT NULL;

-- drone_command_outbox: commands to the fleet, written in the transaction of the mission change that
-- caused them and produced to drone.commands in seq order per drone (drones/command-sender.ts), as the gate
-- command outbox (0023). command_id is derived from the cause, so a replayed cause writes nothing new.
CREATE TABLE drone_command_outbox (
  command_id      text PRIMARY KEY,
  seq             bigint GENERATED ALWAYS AS IDENTITY,
  drone_id        text NOT NULL,
  mission_id      text NOT NULL,
  command         jsonb NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  attempts        integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  sent_at         timestamptz,
  last_error      text
);
CREATE INDEX drone_command_outbox_pending_idx ON drone_command_outbox (drone_id, seq) WHERE sent_at IS NULL;
CREATE INDEX drone_command_outbox_sent_idx ON drone_command_outbox (sent_at) WHERE sent_at IS NOT NULL;

-- A dispatch that found no drone escalates the incident with an action of source `fleet`.
ALTER TABLE response_actions DROP CONSTRAINT response_actions_source_check;
ALTER TABLE response_actions ADD CONSTRAINT response_actions_source_check CHECK (source IN ('rule', 'level', 'ladder', 'ack_timeout', 'fleet'));

-- Down Migration
ALTER TABLE response_actions DROP CONSTRAINT response_actions_source_check;
ALTER TABLE response_actions ADD CONSTRAINT response_actions_source_check CHECK (source IN ('rule', 'level', 'ladder', 'ack_timeout'));
DROP TABLE drone_command_outbox;
DROP TABLE drone_missions;
DROP TABLE drones;
