-- Up Migration
-- The gate command outbox (processors/gate/command-outbox.ts, issue 23): every command to a lane controller
-- is written here in the transaction of its cause (an automated decision, an override, a response action),
-- then produced to gate.commands by a sender (command-sender.ts) that retries until Kafka acknowledges it.
--   command_id  derived from the cause, so a replayed or retried cause finds its row instead of adding one;
--   seq         insert order: a gate's commands are sent in this order, its oldest unsent one first;
--   origin, transaction_id  what the sender needs to append the audit entries without parsing `command`;
--   sent_at     set once Kafka acknowledged; sent rows are kept 7 days (the topic's retention) so a cause
--               seen again within that time still finds its command, then deleted by the sender's role.
CREATE TABLE gate_command_outbox (
  command_id      text PRIMARY KEY,
  seq             bigint GENERATED ALWAYS AS IDENTITY,
  gate_id         text NOT NULL,
  lane            text NOT NULL,
  origin          text NOT NULL CHECK (origin IN ('override', 'decision', 'response')),
  transaction_id  text,
  command         jsonb NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  attempts        integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  sent_at         timestamptz,
  last_error      text
);
-- The sender's claim: each gate's oldest unsent command (DISTINCT ON gate_id ORDER BY seq).
CREATE INDEX gate_command_outbox_pending_idx ON gate_command_outbox (gate_id, seq) WHERE sent_at IS NULL;
-- Retention of what was sent.
CREATE INDEX gate_command_outbox_sent_idx ON gate_command_outbox (sent_at) WHERE sent_at IS NOT NULL;

-- Down Migration
DROP TABLE gate_command_outbox;
