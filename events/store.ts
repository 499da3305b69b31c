import { AppError } from '../platform/errors.ts';
import type { PoolClient } from '../platform/postgres.ts';
import type { SecurityEvent } from '../schemas/event.ts';
import { eventProblems } from './event-types.ts';

/**
 * Stores events, and their outbox entries in the given order, in the caller's transaction; the caller
 * wakes the relay (ctx.relay.wake()) once that transaction has committed. Returns the ones that were new:
 * an event whose id is already stored (a replay after a crash) is neither stored nor published again.
 * An event that disagrees with the type table (events/event-types.ts) is refused, and the transaction with it.
 */
export async function storeEvents(client: PoolClient, events: SecurityEvent[]): Promise<SecurityEvent[]> {
  const batch = firstOfEachId(events);
  if (batch.length === 0) return [];
  for (const event of batch) {
    const problems = eventProblems(event);
    if (problems.length > 0) {
      throw new AppError('internal_error', `event ${event.id} disagrees with the event type table: ${problems.map((p) => p.message).join('; ')}`, problems);
    }
  }
  const { rows } = await client.query<{ id: string }>(
    // Outbox rows are inserted in the batch's order, which numbers them (seq) for the relay.
    `WITH input AS (
       SELECT e, n FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS input (e, n)
     ), stored AS (
       INSERT INTO security_events (id, type, category, severity, occurred_at, source_module, zone, requires_action, incident_id, body)
       SELECT e->>'id', e->>'type', e->>'category', e->>'severity', (e->>'timestamp')::timestamptz, e->>'source_module',
              e->'location'->>'zone', (e->>'requires_action')::boolean, e->>'incident_id', e
         FROM input
       ON CONFLICT (id) DO NOTHING
       RETURNING id, source_module
     ), queued AS (
       INSERT INTO event_outbox (event_id, source_module)
       SELECT stored.id, stored.source_module FROM stored JOIN input ON input.e->>'id' = stored.id ORDER BY input.n
     )
     SELECT id FROM stored`,
    [JSON.stringify(batch)],
  );
  const fresh = new Set(rows.map((r) => r.id));
  return batch.filter((e) => fresh.has(e.id));
}

/** A batch naming one id twice (one cause found twice) stores it once, as its first occurrence. */
function firstOfEachId(events: SecurityEvent[]): SecurityEvent[] {
  const seen = new Set<string>();
  return events.filter((e) => !seen.has(e.id) && seen.add(e.id));
}
