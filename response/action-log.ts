// The durable action log (migration 0024): planned actions recorded in the transaction that planned them,
// claimed by executors with FOR UPDATE SKIP LOCKED and a lease (as the webhook queue), finished once.
import { randomUUID } from 'node:crypto';
import type { Pool, PoolClient } from '../platform/postgres.ts';
import type { ResponseAction } from '../schemas/incident.ts';
import type { ActionKind, PlannedAction } from './planner.ts';

/** How long a claim holds an action: an executor that crashed gives it back after this. */
export const ACTION_LEASE_MS = 30_000;

/** Claim order under a backlog (0 first): what protects the port before who is told about it. */
export const ACTION_PRIORITY: Readonly<Record<ActionKind, number>> = { lock_gate: 0, dispatch_drone: 1, escalate: 2, close_incident: 2, notify: 3 };

/** Retry delays after a failed attempt, then given up (an operator sees it on the incident). */
export const ACTION_RETRY_DELAYS_MS = [1_000, 5_000, 30_000, 120_000, 600_000] as const;

/** When a failed action is tried again, or undefined: give up. `attempts` counts the one that just failed. */
export function nextAttemptDelay(attempts: number): number | undefined {
  return ACTION_RETRY_DELAYS_MS[attempts - 1];
}

/** Records planned actions; those already recorded (a replayed event) are left alone. Returns how many are new. */
export async function recordActions(client: PoolClient, actions: readonly PlannedAction[]): Promise<number> {
  return (await recordNewActions(client, actions)).size;
}

/**
 * recordActions, returning the ids recorded anew: only those may have a first attempt (a replay's are not).
 * An action recorded before its event had an incident (a lock made ahead, response/locks-first.ts) takes
 * the incident it is planned with now.
 */
export async function recordNewActions(client: PoolClient, actions: readonly PlannedAction[]): Promise<Set<string>> {
  if (actions.length === 0) return new Set();
  const rows = actions.map((a) => ({
    id: a.id, kind: a.kind, target: a.target, event_id: a.event_id, incident_id: a.incident_id, level: a.level, source: a.source, reason: a.reason,
    params: a.params, status: a.muted ? 'muted' : 'pending', priority: ACTION_PRIORITY[a.kind],
  }));
  const { rows: recorded } = await client.query<{ id: string; inserted: boolean }>(
    `INSERT INTO response_actions (id, kind, target, event_id, incident_id, level, source, reason, params, status, priority, done_at)
     SELECT r.id, r.kind, r.target, r.event_id, r.incident_id, r.level, r.source, r.reason, r.params, r.status, r.priority,
            CASE WHEN r.status = 'muted' THEN now() END
       FROM jsonb_to_recordset($1::jsonb) AS r(id text, kind text, target text, event_id text, incident_id text, level text, source text, reason text, params jsonb, status text, priority smallint)
     ON CONFLICT (id) DO UPDATE SET incident_id = EXCLUDED.incident_id
       WHERE response_actions.incident_id IS NULL AND EXCLUDED.incident_id IS NOT NULL
     RETURNING id, xmax = 0 AS inserted`,
    [JSON.stringify(rows)],
  );
  return new Set(recorded.filter((r) => r.inserted).map((r) => r.id));
}

/** Records actions executed in the transaction that recorded them (their first attempt, done). */
export async function recordExecuted(client: PoolClient, executed: readonly { id: string; result: Record<string, unknown> }[]): Promise<void> {
  if (executed.length === 0) return;
  const { rowCount } = await client.query(
    `UPDATE response_actions a SET status = 'done', result = r.result, attempts = 1, done_at = now()
       FROM jsonb_to_recordset($1::jsonb) AS r(id text, result jsonb)
      WHERE a.id = r.id AND a.status = 'pending'`,
    [JSON.stringify(executed)],
  );
  if (rowCount !== executed.length) throw new Error(`recorded ${rowCount ?? 0} of ${executed.length} actions executed in planning`);
}

export interface ClaimedAction {
  id: string;
  kind: ActionKind;
  target: string;
  eventId: string;
  incidentId: string | null;
  level: string;
  source: string;
  reason: string;
  params: Record<string, string>;
  /** This attempt's number (1 for the first). */
  attempt: number;
  /** When the planner recorded it (ms since the epoch). */
  recordedAt: number;
  /** Proves the claim when the result is recorded: a claim that expired and was taken over writes nothing. */
  token: string;
}

interface ClaimRow {
  id: string;
  kind: ActionKind;
  target: string;
  event_id: string;
  incident_id: string | null;
  level: string;
  source: string;
  reason: string;
  params: Record<string, string>;
  attempts: number;
  recorded_ms: string;
}

/** Claims up to `limit` due actions (pending or failed and due, not leased): by ACTION_PRIORITY, then oldest first. */
export async function claimDueActions(pool: Pool, limit: number, now = Date.now()): Promise<ClaimedAction[]> {
  const token = randomUUID();
  const { rows } = await pool.query<ClaimRow>(
    `UPDATE response_actions a SET lease_until = $2::timestamptz + make_interval(secs => $3::double precision / 1000), attempts = a.attempts + 1, last_error = $4
      WHERE a.id IN (SELECT id FROM response_actions
                      WHERE status IN ('pending', 'failed') AND next_attempt_at <= $2 AND (lease_until IS NULL OR lease_until < $2)
                      ORDER BY priority, next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
     RETURNING a.id, a.kind, a.target, a.event_id, a.incident_id, a.level, a.source, a.reason, a.params, a.attempts,
               (extract(epoch FROM a.created_at) * 1000)::bigint AS recorded_ms`,
    [limit, new Date(now), ACTION_LEASE_MS, `claim:${token}`],
  );
  return rows.map((r) => ({
    id: r.id, kind: r.kind, target: r.target, eventId: r.event_id, incidentId: r.incident_id, level: r.level, source: r.source, reason: r.reason,
    params: r.params, attempt: r.attempts, recordedAt: Number(r.recorded_ms), token,
  }));
}

/**
 * Records an executed action. Executors that write elsewhere (a gate command, an event) pass their
 * transaction, so the effect and its `done` commit together: a crash before the commit repeats neither.
 * Returns false when the claim was lost (its lease ended and another executor took it).
 */
export async function completeAction(db: Pool | PoolClient, action: ClaimedAction, result: Record<string, unknown>, status: 'done' | 'waiting_fleet' = 'done'): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE response_actions SET status = $3, result = $4, done_at = now(), lease_until = NULL, last_error = NULL
      WHERE id = $1 AND last_error = $2 AND status IN ('pending', 'failed')`,
    [action.id, `claim:${action.token}`, status, JSON.stringify(result)],
  );
  return rowCount === 1;
}

/** Records a failed attempt: tried again later, or given up after the last delay. */
export async function failAction(pool: Pool, action: ClaimedAction, error: string, now = Date.now()): Promise<'retry' | 'given_up'> {
  const delay = nextAttemptDelay(action.attempt);
  await pool.query(
    `UPDATE response_actions SET status = $3, next_attempt_at = $4, lease_until = NULL, last_error = $5, done_at = CASE WHEN $3 = 'given_up' THEN now() END
      WHERE id = $1 AND last_error = $2`,
    [action.id, `claim:${action.token}`, delay === undefined ? 'given_up' : 'failed', new Date(now + (delay ?? 0)), error.slice(0, 1_000)],
  );
  return delay === undefined ? 'given_up' : 'retry';
}

/** An action as the log holds it; its shape is the incident detail's (schemas/incident.ts). */
export type ActionView = ResponseAction;

const ACTION_COLUMNS = `id, kind, target, event_id, incident_id, level, source, reason, params, status, attempts, result,
  CASE WHEN last_error LIKE 'claim:%' THEN NULL ELSE last_error END AS last_error,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at,
  to_char(done_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS done_at`;
const BY_INCIDENT = `SELECT ${ACTION_COLUMNS} FROM response_actions WHERE incident_id = $1 ORDER BY created_at, id`;
const BY_EVENT = `SELECT ${ACTION_COLUMNS} FROM response_actions WHERE event_id = $1 ORDER BY created_at, id`;

/** The actions of one incident or one event, oldest first (incident detail, tests). */
export async function listActions(db: Pool | PoolClient, by: { incidentId: string } | { eventId: string }): Promise<ActionView[]> {
  const { rows } = 'incidentId' in by ? await db.query<ActionView>(BY_INCIDENT, [by.incidentId]) : await db.query<ActionView>(BY_EVENT, [by.eventId]);
  return rows;
}
