-- Up Migration
-- Webhooks (spec "Webhook", "Webhook deliveries"; docs/events-and-delivery.md "Webhooks"). The signing secret
-- is needed in clear to sign, so it is stored encrypted (AES-256-GCM, key PSS_WEBHOOK_SECRET_KEY), not
-- hashed.
CREATE TABLE webhooks (
  id                        text PRIMARY KEY,
  name                      text NOT NULL,
  url                       text NOT NULL,
  events                    text[] NOT NULL,
  min_severity              text,
  categories                text[],
  zones                     text[],
  headers                   jsonb NOT NULL DEFAULT '{}',
  secret_sealed             text NOT NULL,
  secret_hint               text NOT NULL,
  active                    boolean NOT NULL DEFAULT true,
  -- Why active went false by itself: gone (an answer of 410, for good) or consecutive_failures.
  disabled_reason           text,
  health_status             text NOT NULL DEFAULT 'healthy',
  consecutive_full_failures integer NOT NULL DEFAULT 0,
  success_count             bigint NOT NULL DEFAULT 0,
  failure_count             bigint NOT NULL DEFAULT 0,
  response_time_sum_ms      double precision NOT NULL DEFAULT 0,
  response_time_samples     bigint NOT NULL DEFAULT 0,
  last_triggered_at         timestamptz,
  last_success_at           timestamptz,
  last_failure_at           timestamptz,
  last_failure_reason       text,
  created_at                timestamptz NOT NULL DEFAULT now(),
  updated_at                timestamptz NOT NULL DEFAULT now()
);

-- The durable delivery queue: one row per (webhook, event). A row is due when status is pending and
-- next_attempt_at has passed; a dispatcher claims it by moving next_attempt_at past its lease and
-- setting claim_token, so a crashed dispatcher's attempt becomes due again when the lease ends.
CREATE TABLE webhook_deliveries (
  id                  text PRIMARY KEY,
  webhook_id          text NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  event_id            text NOT NULL,
  event_type          text NOT NULL,
  severity            text NOT NULL,
  zone                text,
  event               jsonb NOT NULL,
  test                boolean NOT NULL DEFAULT false,
  status              text NOT NULL DEFAULT 'pending',
  -- Attempts of the whole delivery (the body's `attempt`) and of its current round (the schedule's).
  attempts            integer NOT NULL DEFAULT 0,
  round_attempts      integer NOT NULL DEFAULT 0,
  -- A round of one attempt (a replay or a test send) is not retried.
  single_attempt      boolean NOT NULL DEFAULT false,
  next_attempt_at     timestamptz,
  claim_token         text,
  response_code       integer,
  response_time_ms    double precision,
  first_attempt_error text,
  last_error          text,
  delivered_at        timestamptz,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now(),
  UNIQUE (webhook_id, event_id)
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (webhook_id, next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_history_idx ON webhook_deliveries (webhook_id, created_at DESC);

-- Every attempt, for the health window (docs/events-and-delivery.md "Health").
CREATE TABLE webhook_attempts (
  delivery_id      text NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  attempt          integer NOT NULL,
  webhook_id       text NOT NULL,
  attempted_at     timestamptz NOT NULL,
  response_code    integer,
  response_time_ms double precision NOT NULL,
  reason_class     text,
  error            text,
  response_excerpt text,
  PRIMARY KEY (delivery_id, attempt)
);
CREATE INDEX webhook_attempts_recent_idx ON webhook_attempts (webhook_id, attempted_at DESC);

-- Down Migration
DROP TABLE webhook_attempts;
DROP TABLE webhook_deliveries;
DROP TABLE webhooks;
