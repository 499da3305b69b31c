// What operators change on an event (PATCH /v1/events/{event_id}): requires_action, assigned_to and
// incident_id. Each change updates the event's event_triage row, is kept in event_changes (who, when,
// before and after) and queues the event for publication again, marked as an update (events/relay.ts).
import { isDeepStrictEqual } from 'node:util';
import { inTransaction, type Pool, type PoolClient } from '../platform/postgres.ts';
import type { SecurityEvent } from '../schemas/event.ts';
import type { EventPatch } from '../schemas/event-api.ts';
import { readEvent } from './queries.ts';

export interface TriageFields {
  requires_action: boolean;
  assigned_to: string;
  incident_id: string | null;
}

/**
 * Who made a change: the credential (API key id or OAuth access-token id) and whom it stands for; or the
 * service itself (`system`: grouping attaching an event to its incident, credentialId `system`).
 */
export interface Operator {
  credentialId: string;
  /** The API key's name, or the operator's username; for the service, the part that changed it. */
  principal: string;
  kind: 'api_key' | 'oauth' | 'system';
}

/** The fields after a change: those in the patch replace the current ones. */
export function applyPatch(before: TriageFields, patch: EventPatch): TriageFields {
  return {
    requires_action: patch.requires_action ?? before.requires_action,
    assigned_to: patch.assigned_to ?? before.assigned_to,
    incident_id: patch.incident_id === undefined ? before.incident_id : patch.incident_id,
  };
}

export interface EventChange {
  event: SecurityEvent;
  /** Operator changes the event has had, this one included; 0 when it never had one. */
  revision: number;
  /** False when the patch repeated what the event already said: nothing was written or published. */
  changed: boolean;
}

/** Applies a patch; undefined when no such event is stored. The caller wakes the relay after a change. */
export async function changeEvent(pool: Pool, id: string, patch: EventPatch, by: Operator): Promise<EventChange | undefined> {
  return inTransaction(pool, (client) => changeEventIn(client, id, patch, by));
}

/** changeEvent in the caller's transaction (incidents/ attaches events with their incident this way). */
export async function changeEventIn(client: PoolClient, id: string, patch: EventPatch, by: Operator): Promise<EventChange | undefined> {
  // Changes of one event are made one at a time, so each history row's `before` is the previous `after`.
  const locked = await client.query<{ source_module: string }>('SELECT source_module FROM security_events WHERE id = $1 FOR NO KEY UPDATE', [id]);
  const sourceModule = locked.rows[0]?.source_module;
  if (sourceModule === undefined) return undefined;
  const { rows } = await client.query<TriageFields & { revision: number }>(
    'SELECT requires_action, assigned_to, incident_id, revision FROM security_events_current WHERE id = $1',
    [id],
  );
  const { revision: current, ...before } = rows[0] as TriageFields & { revision: number };
  const after = applyPatch(before, patch);
  if (isDeepStrictEqual(before, after)) return { event: (await readEvent(client, id)) as SecurityEvent, revision: current, changed: false };
  const revision = current + 1;
  await client.query(
    `INSERT INTO event_triage (event_id, requires_action, assigned_to, incident_id, updated_at, updated_by, revision)
     VALUES ($1, $2, $3, $4, now(), $5, $6)
     ON CONFLICT (event_id) DO UPDATE SET requires_action = EXCLUDED.requires_action, assigned_to = EXCLUDED.assigned_to,
       incident_id = EXCLUDED.incident_id, updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by, revision = EXCLUDED.revision`,
    [id, after.requires_action, after.assigned_to, after.incident_id, by.credentialId, revision],
  );
  await client.query(
    `INSERT INTO event_changes (event_id, revision, credential_id, principal, auth_kind, before, after) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [id, revision, by.credentialId, by.principal, by.kind, before, after],
  );
  await queueUpdate(client, id, sourceModule);
  return { event: (await readEvent(client, id)) as SecurityEvent, revision, changed: true };
}

/**
 * Queues the event for publication as it is now. An entry still waiting (the event itself, or an earlier
 * change) already publishes the current state, so it stays as it is. The lock waits for a relay that is
 * sending that entry right now: once it is gone, this change needs an entry of its own.
 */
async function queueUpdate(client: PoolClient, id: string, sourceModule: string): Promise<void> {
  const { rows } = await client.query('SELECT 1 FROM event_outbox WHERE event_id = $1 FOR UPDATE', [id]);
  if (rows.length > 0) return;
  await client.query(`INSERT INTO event_outbox (event_id, source_module, change) VALUES ($1, $2, 'updated')`, [id, sourceModule]);
}

