-- Up Migration
-- The response loop's durable action log (issue 23, response/action-log.ts). One row per planned action;
-- its id is derived from its cause (response/planner.ts), so a replay of security.events or a second
-- instance planning the same event inserts nothing new. Executors claim due rows FOR UPDATE SKIP LOCKED
-- with a lease, like the webhook queue: two instances never run one action at once, and a crashed
-- executor's action comes back when its lease ends. `done` and `muted` are final; `failed` is retried at
-- next_attempt_at until attempts reach the executor's limit, then `given_up`.
CREATE TABLE response_actions (
  id               text PRIMARY KEY,
  kind             text NOT NULL CHECK (kind IN ('notify', 'escalate', 'lock_gate', 'dispatch_drone', 'close_incident')),
  target           text NOT NULL,
  event_id         text NOT NULL,
  incident_id      text,
  level            text NOT NULL,
  source           text NOT NULL CHECK (source IN ('rule', 'level', 'ladder', 'ack_timeout')),
  reason           text NOT NULL,
  params           jsonb NOT NULL DEFAULT '{}'::jsonb,
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done', 'muted', 'failed', 'given_up', 'waiting_fleet')),
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz NOT NULL DEFAULT now(),
  lease_until      timestamptz,
  result           jsonb,
  last_error       text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  done_at          timestamptz
);
CREATE INDEX response_actions_due_idx ON response_actions (next_attempt_at) WHERE status IN ('pending', 'failed');
CREATE INDEX response_actions_event_idx ON response_actions (event_id);
CREATE INDEX response_actions_incident_idx ON response_actions (incident_id) WHERE incident_id IS NOT NULL;

-- When the response loop first ran on this site: events appended to security.events before it are not
-- responded to (a first deployment does not act on the whole history of the topic).
CREATE TABLE response_loop (
  singleton        boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  first_started_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE response_loop;
DROP TABLE response_actions;
