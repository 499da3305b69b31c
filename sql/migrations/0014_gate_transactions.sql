-- Up Migration
-- Gate transactions (issue 11): the terminal's truck appointments, one transaction per gate lane
-- reading, and the transactions' audit trail.
--   * gate_appointments: what the terminal operating system booked, as last read from the compacted
--     gate.appointments topic (processors/gate/appointments.ts); the gate processor looks readings up here.
--   * gate_transactions: one row per reading (reading_id unique: a replayed reading changes nothing).
--     Columns hold what the list filters and sorts on; `body` the transaction as the detail view shows it.
--   * gate_audit: the audit trail of every transaction, in one hash chain (processors/gate/audit-chain.ts).
--     Rows can only be inserted: a trigger refuses UPDATE, DELETE and TRUNCATE, and `pss audit verify`
--     recomputes the chain to detect a change made by someone who could disable the trigger (a superuser).

CREATE TABLE gate_appointments (
  appointment_id text PRIMARY KEY,
  body jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- id is derived from reading_id (processors/gate/transaction.ts), so the primary key alone makes a
-- replayed reading a no-op; reading_id is not indexed again (each index costs the processor's inserts).
CREATE TABLE gate_transactions (
  id text PRIMARY KEY,
  reading_id text NOT NULL,
  gate text NOT NULL,
  lane text NOT NULL,
  status text NOT NULL CHECK (status IN ('approved', 'flagged', 'held', 'overridden', 'rejected')),
  decision text NOT NULL CHECK (decision IN ('auto_approved', 'manual_review', 'auto_rejected', 'approved', 'rejected')),
  created_at timestamptz NOT NULL,
  completed_at timestamptz,
  -- container.id and vehicle.plate as the filters compare them: upper case, without spaces, dashes and dots.
  container_key text,
  plate_key text,
  risk_score real NOT NULL,
  operator text,
  body jsonb NOT NULL,
  override jsonb
);

-- Every list query has a time window (24 hours by default), so each filter's index ends in created_at:
-- a filter plus the window is one index range. (created_at, id) serves the default sort, the window
-- alone and its count from the index alone. The risk-score sort walks (risk_score, created_at, id) from
-- the top, skipping entries outside the window: a page of the busiest day's 33,000 transactions reads a
-- few thousand index entries instead of sorting them all (bench/gate-transactions-query.ts). The gate
-- sort is served by the gate index. The page picks ids first, so only its 50 bodies are read.
CREATE INDEX gate_transactions_created ON gate_transactions (created_at, id);
CREATE INDEX gate_transactions_status ON gate_transactions (status, created_at);
CREATE INDEX gate_transactions_gate ON gate_transactions (gate, created_at);
-- No decision index: an automated decision implies its statuses, and the list adds them to the filter.
CREATE INDEX gate_transactions_plate ON gate_transactions (plate_key, created_at);
-- Prefix match (container_id=MSCU12): text_pattern_ops makes `LIKE 'MSCU12%'` an index range.
CREATE INDEX gate_transactions_container ON gate_transactions (container_key text_pattern_ops, created_at);
CREATE INDEX gate_transactions_risk ON gate_transactions (risk_score, created_at, id);

CREATE TABLE gate_audit (
  seq bigint PRIMARY KEY,
  transaction_id text NOT NULL,
  action text NOT NULL,
  at timestamptz NOT NULL,
  actor text NOT NULL,
  details jsonb,
  rule text,
  prev_hash text NOT NULL,
  hash text NOT NULL
);
CREATE INDEX gate_audit_transaction ON gate_audit (transaction_id, seq);

CREATE FUNCTION gate_audit_refuse_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'gate_audit is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;
CREATE TRIGGER gate_audit_append_only BEFORE UPDATE OR DELETE ON gate_audit
  FOR EACH ROW EXECUTE FUNCTION gate_audit_refuse_change();
CREATE TRIGGER gate_audit_no_truncate BEFORE TRUNCATE ON gate_audit
  FOR EACH STATEMENT EXECUTE FUNCTION gate_audit_refuse_change();

-- Down Migration
DROP TABLE gate_audit;
DROP FUNCTION gate_audit_refuse_change();
DROP TABLE gate_transactions;
DROP TABLE gate_appointments;
