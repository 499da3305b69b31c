-- Up Migration
-- Operator administration (issue 34, item 6): every change an admin makes to an operator account, from
-- `pss users …` or PATCH/POST /v1/auth/operators/…, kept as system_config_changes keeps configuration
-- changes: who (the credential and whom it stands for), when, what, the fields before and after. A password
-- reset records that it happened, never a hash. Kept for good (a handful of rows a month).
CREATE TABLE operator_changes (
  id            bigserial PRIMARY KEY,
  operator_id   text NOT NULL REFERENCES operators (id),
  changed_at    timestamptz NOT NULL DEFAULT now(),
  action        text NOT NULL CHECK (action IN ('create', 'scopes', 'disable', 'enable', 'reset_password')),
  credential_id text NOT NULL,
  principal     text NOT NULL,
  auth_kind     text NOT NULL,
  before        jsonb NOT NULL,
  after         jsonb NOT NULL
);
CREATE INDEX operator_changes_operator_idx ON operator_changes (operator_id, id);

-- Down Migration
DROP TABLE operator_changes;
