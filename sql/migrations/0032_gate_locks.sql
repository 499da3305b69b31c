-- Up Migration
-- Whole-gate lock state (processors/gate/gate-locks.ts, issue 34): one row per gate that was ever locked,
-- written in the transaction that writes the lock or release command to the command outbox. The row is
-- the gate's serialisation point: a lock (response/executors/lock-gate.ts) and a release (the API, pss)
-- take its row lock before writing their command, so the outbox's order for the gate (seq) is the order
-- in which they committed, and the lane ends in the state this row shows. The incident is read from the
-- response action (action_id) at read time: a lock made ahead of its incident gets it filled in later.
CREATE TABLE gate_locks (
  gate_id            text PRIMARY KEY,
  locked             boolean NOT NULL,
  lock_command_id    text NOT NULL,
  action_id          text,
  reason             text NOT NULL,
  locked_at          timestamptz NOT NULL,
  released_at        timestamptz,
  released_by        text,
  release_reason     text,
  release_command_id text,
  release_credential text
);

-- The releases' audit: who released which lock, why, with which credential and command. Rows are only
-- inserted (a trigger refuses UPDATE, DELETE and TRUNCATE, as for gate_audit): the gate_locks row keeps the
-- latest release only, and is overwritten by the next lock.
CREATE TABLE gate_lock_releases (
  command_id      text PRIMARY KEY,
  gate_id         text NOT NULL,
  lock_command_id text NOT NULL,
  action_id       text,
  incident_id     text,
  released_at     timestamptz NOT NULL,
  released_by     text NOT NULL,
  reason          text NOT NULL,
  credential_id   text NOT NULL
);
CREATE INDEX gate_lock_releases_gate_idx ON gate_lock_releases (gate_id, released_at);
CREATE FUNCTION gate_lock_releases_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'gate_lock_releases is append-only';
END $$;
CREATE TRIGGER gate_lock_releases_no_change BEFORE UPDATE OR DELETE ON gate_lock_releases FOR EACH ROW EXECUTE FUNCTION gate_lock_releases_append_only();
CREATE TRIGGER gate_lock_releases_no_truncate BEFORE TRUNCATE ON gate_lock_releases FOR EACH STATEMENT EXECUTE FUNCTION gate_lock_releases_append_only();

ALTER TABLE gate_command_outbox DROP CONSTRAINT gate_command_outbox_origin_check;
ALTER TABLE gate_command_outbox ADD CONSTRAINT gate_command_outbox_origin_check CHECK (origin IN ('override', 'decision', 'response', 'release'));

-- Locks made before this table: each gate's latest executed lock_gate action.
INSERT INTO gate_locks (gate_id, locked, lock_command_id, action_id, reason, locked_at)
SELECT DISTINCT ON (target) target, true, coalesce(result->>'command_id', ''), id, reason, coalesce(done_at, created_at)
  FROM response_actions
 WHERE kind = 'lock_gate' AND status = 'done'
 ORDER BY target, created_at DESC;

-- Down Migration
DELETE FROM gate_command_outbox WHERE origin = 'release';
ALTER TABLE gate_command_outbox DROP CONSTRAINT gate_command_outbox_origin_check;
ALTER TABLE gate_command_outbox ADD CONSTRAINT gate_command_outbox_origin_check CHECK (origin IN ('override', 'decision', 'response'));
DROP TABLE gate_locks;
DROP TABLE gate_lock_releases;
DROP FUNCTION gate_lock_releases_append_only();
