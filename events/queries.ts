// Reading stored events as operators see them: the body as its module stored it, with the operator-changed
// fields (requires_action, assigned_to, incident_id) of its event_triage row, merged by the
// security_events_current view (migration 0010).
import type { Pool, PoolClient } from '../platform/postgres.ts';
import type { SecurityEvent } from '../schemas/event.ts';

/** One event by id, merged with its triage; undefined when no such event is stored. */
export async function readEvent(db: Pool | PoolClient, id: string): Promise<SecurityEvent | undefined> {
  const { rows } = await db.query<{ body: SecurityEvent }>('SELECT body FROM security_events_current WHERE id = $1', [id]);
  return rows[0]?.body;
}
