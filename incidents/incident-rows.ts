// Incidents in Postgres (migration 0022): one row per incident, read into the API's Incident shape and
// written back whole; every change beside it in incident_changes. Every value a parameter.
import type { Pool, PoolClient } from '../platform/postgres.ts';
import type { Operator } from '../events/triage.ts';
import type { Incident } from '../schemas/incident.ts';

const FIELDS = [
  'id', 'key', 'reason', 'status', 'severity', 'title', 'mmsi', 'zone', 'zone_id', 'gate_id', 'container_id', 'plate', 'location',
  'opening_event_id', 'event_count', 'first_event_at', 'last_event_at', 'opened_at', 'acknowledged_at', 'acknowledged_by', 'resolved_at',
  'resolved_by', 'resolution_reason', 'assigned_to', 'escalation_step', 'next_escalation_at', 'reopen_count', 'merged_into', 'notes',
  'revision', 'updated_at',
] as const satisfies readonly (keyof Incident)[];

export const INCIDENT_COLUMNS = FIELDS.join(', ');
const TIMES = new Set(['first_event_at', 'last_event_at', 'opened_at', 'acknowledged_at', 'resolved_at', 'next_escalation_at', 'updated_at']);

/** A row as pg returns it (timestamps as Date, bigint as text) in the API's shape. */
export function incidentOf(row: Record<string, unknown>): Incident {
  const out: Record<string, unknown> = {};
  for (const field of FIELDS) {
    const value = row[field];
    out[field] = value instanceof Date && TIMES.has(field) ? value.toISOString() : value;
  }
  out.mmsi = row.mmsi === null ? null : Number(row.mmsi);
  return out as Incident;
}

/** One incident, locked for this transaction when `lock`; undefined when there is none. */
export async function readIncident(db: Pool | PoolClient, id: string, lock = false): Promise<Incident | undefined> {
  const { rows } = await db.query(`SELECT ${INCIDENT_COLUMNS} FROM incidents WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0] === undefined ? undefined : incidentOf(rows[0]);
}

/** Where a merged incident's events went: the incident at the end of its merged_into chain, locked. */
export async function followMerges(client: PoolClient, incident: Incident): Promise<Incident> {
  let current = incident;
  // Merges never form a cycle (a merged incident is neither merged again nor merged into); the bound is a guard.
  for (let hops = 0; current.merged_into !== null && hops < 100; hops++) {
    const next = await readIncident(client, current.merged_into, true);
    if (next === undefined) break;
    current = next;
  }
  return current;
}

/** The newest incident of a grouping key, locked; undefined when the key has none. */
export async function newestOfKey(client: PoolClient, key: string): Promise<Incident | undefined> {
  const { rows } = await client.query(`SELECT ${INCIDENT_COLUMNS} FROM incidents WHERE key = $1 ORDER BY last_event_at DESC, id DESC LIMIT 1 FOR UPDATE`, [key]);
  return rows[0] === undefined ? undefined : incidentOf(rows[0]);
}

/** Inserts a new incident; false when one with its id exists already (a replay). */
export async function insertIncident(client: PoolClient, incident: Incident): Promise<boolean> {
  const { rowCount } = await client.query(
    `INSERT INTO incidents (${INCIDENT_COLUMNS}) SELECT ${INCIDENT_COLUMNS} FROM jsonb_populate_record(NULL::incidents, $1::jsonb)
     ON CONFLICT (id) DO NOTHING`,
    [JSON.stringify(incident)],
  );
  return rowCount === 1;
}

/** Writes every field of a stored incident. */
export async function updateIncident(client: PoolClient, incident: Incident): Promise<void> {
  const changed = FIELDS.filter((f) => f !== 'id');
  await client.query(
    `UPDATE incidents AS i SET (${changed.join(', ')}) = (SELECT ${changed.map((f) => `r.${f}`).join(', ')} FROM jsonb_populate_record(NULL::incidents, $1::jsonb) AS r)
      WHERE i.id = $2`,
    [JSON.stringify(incident), incident.id],
  );
}

export interface ChangeRecord {
  action: string;
  by: Operator;
  at: Date;
  before: Record<string, unknown>;
  after: Record<string, unknown>;
  eventId?: string;
}

/** The audit row of one change; `revision` is the incident's after it. */
export async function recordChange(client: PoolClient, incidentId: string, revision: number, change: ChangeRecord): Promise<void> {
  await client.query(
    `INSERT INTO incident_changes (incident_id, revision, changed_at, action, credential_id, principal, auth_kind, event_id, before, after)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [incidentId, revision, change.at, change.action, change.by.credentialId, change.by.principal, change.by.kind, change.eventId ?? null, change.before, change.after],
  );
}
