// The relay's side of the event outbox (event_outbox, filled by store.ts): claim the oldest entries,
// forget them once they are on the topic, and say how old the oldest one is.
import type { Pool, PoolClient } from '../platform/postgres.ts';
import type { EventChangeKind, StoredEventText } from './event-record.ts';

export interface PendingEvent {
  /**
   * As operators see it now (security_events_current): a triage change made before publication is included.
   * As text: the relay forwards it without parsing (a parse and a re-serialisation per event cost the
   * gate pipeline about 1.8 s of its one thread per 100,000 readings).
   */
  event: StoredEventText;
  /** A new event, or an operator's change of one already published (events/triage.ts). */
  change: EventChangeKind;
  /** Operator changes the event has had (0: none); with the id, it tells consumers which copy is newer. */
  revision: number;
  /** Seconds from storing to this claim, on the database's clock (the one that stamped it). */
  ageSeconds: number;
}

/**
 * Locks and returns up to `limit` outbox entries at least `minAgeMs` old, in the order they were stored,
 * for the rest of the caller's transaction. Entries another relay has locked are skipped, not waited
 * for, so relays on several instances share the outbox without publishing one entry twice at once.
 */
export async function claimPending(client: PoolClient, minAgeMs: number, limit: number): Promise<PendingEvent[]> {
  const { rows } = await client.query<{ id: string; type: string; body: string; change: EventChangeKind; revision: number; age: number }>(
    `SELECT e.id, e.type, e.body::text AS body, o.change, e.revision, extract(epoch FROM clock_timestamp() - o.created_at)::float8 AS age
       FROM event_outbox AS o JOIN security_events_current AS e ON e.id = o.event_id
      WHERE o.created_at <= now() - make_interval(secs => $1::double precision / 1000)
      ORDER BY o.seq
      LIMIT $2
        FOR UPDATE OF o SKIP LOCKED`,
    [minAgeMs, limit],
  );
  return rows.map((r) => ({ event: { id: r.id, type: r.type, json: r.body }, change: r.change, revision: r.revision, ageSeconds: r.age }));
}

/** Removes the entries of events now on the topic (in the claiming transaction, so their locks go with it). */
export async function forgetPublished(client: PoolClient, ids: string[]): Promise<void> {
  await client.query('DELETE FROM event_outbox WHERE event_id = ANY($1::text[])', [ids]);
}

/** Seconds since the oldest entry still waiting was stored; 0 when none waits. */
export async function oldestPendingSeconds(pool: Pool): Promise<number> {
  const { rows } = await pool.query<{ age: number }>(
    'SELECT extract(epoch FROM now() - created_at)::float8 AS age FROM event_outbox ORDER BY seq LIMIT 1',
  );
  return Math.max(0, rows[0]?.age ?? 0);
}
