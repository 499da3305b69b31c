-- Up Migration
-- Under a backlog the executor takes the actions that protect the port first (response/action-log.ts
-- ACTION_PRIORITY): gate locks, then drones, escalations and closing incidents, then notifications.
ALTER TABLE response_actions ADD COLUMN priority smallint NOT NULL DEFAULT 3;
DROP INDEX response_actions_due_idx;
CREATE INDEX response_actions_due_idx ON response_actions (priority, next_attempt_at) WHERE status IN ('pending', 'failed');

-- Down Migration
DROP INDEX response_actions_due_idx;
CREATE INDEX response_actions_due_idx ON response_actions (next_attempt_at) WHERE status IN ('pending', 'failed');
ALTER TABLE response_actions DROP COLUMN priority;
