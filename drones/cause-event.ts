// The triggering event learns its mission: metadata.drone_dispatched and drone_mission_id are set on the
// stored event and it is queued for publication again as an update (as an operator's change is,
// events/triage.ts), in the transaction that assigned the drone.
import type { PoolClient } from '../platform/postgres.ts';

export async function markDispatched(client: PoolClient, eventId: string, missionId: string): Promise<boolean> {
  const { rows } = await client.query<{ source_module: string }>(
    `UPDATE security_events SET body = jsonb_set(body, '{metadata}', coalesce(body->'metadata', '{}'::jsonb) || jsonb_build_object('drone_dispatched', true, 'drone_mission_id', $2::text))
      WHERE id = $1 AND (body->'metadata'->>'drone_mission_id') IS DISTINCT FROM $2
      RETURNING source_module`,
    [eventId, missionId],
  );
  const sourceModule = rows[0]?.source_module;
  if (sourceModule === undefined) return false;
  // An entry still waiting publishes the event as it is now.
  const waiting = await client.query('SELECT 1 FROM event_outbox WHERE event_id = $1 FOR UPDATE', [eventId]);
  if (waiting.rows.length === 0) await client.query(`INSERT INTO event_outbox (event_id, source_module, change) VALUES ($1, $2, 'updated')`, [eventId, sourceModule]);
  return true;
}
