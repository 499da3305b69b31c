-- Up Migration
-- The system configuration (issue 23, item 2; schemas/system-config.ts): one document, replaced whole by
-- PUT /v1/system/config (response/settings/system-config-store.ts). No row: the shipped defaults.
CREATE TABLE system_config (
  -- One row at most: the key is always 'system'.
  key        text PRIMARY KEY CHECK (key = 'system'),
  document   jsonb NOT NULL,
  -- Changes stored so far; the audit row of each is in system_config_changes.
  revision   integer NOT NULL CHECK (revision >= 1),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Every change: who (the credential and whom it stands for), when, the document before and after. Kept
-- for good (a handful of rows a year).
CREATE TABLE system_config_changes (
  revision      integer PRIMARY KEY CHECK (revision >= 1),
  changed_at    timestamptz NOT NULL DEFAULT now(),
  credential_id text NOT NULL,
  principal     text NOT NULL,
  auth_kind     text NOT NULL,
  before        jsonb NOT NULL,
  after         jsonb NOT NULL
);
CREATE INDEX system_config_changes_time_idx ON system_config_changes (changed_at);

-- Down Migration
DROP TABLE system_config_changes;
DROP TABLE system_config;
