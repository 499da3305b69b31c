import type { TopicCodec } from '../platform/codec/index.ts';
import type { KafkaProducer } from '../platform/kafka.ts';
import type { PoolClient, Pool } from '../platform/postgres.ts';
import type { SecurityEvent } from '../schemas/event.ts';

/**
 * Stores events, and their outbox entries, in the caller's transaction. Returns the ones that were new: an
 * event whose id is already stored (a replay after a crash) is neither stored nor published again.
 */
export async function storeEvents(client: PoolClient, events: SecurityEvent[]): Promise<SecurityEvent[]> {
  if (events.length === 0) return [];
  const { rows } = await client.query<{ id: string }>(
    `WITH stored AS (
       INSERT INTO security_events (id, type, category, severity, occurred_at, source_module, zone, requires_action, incident_id, body)
       SELECT e->>'id', e->>'type', e->>'category', e->>'severity', (e->>'timestamp')::timestamptz, e->>'source_module',
              e->'location'->>'zone', (e->>'requires_action')::boolean, e->>'incident_id', e
         FROM jsonb_array_elements($1::jsonb) AS e
       ON CONFLICT (id) DO NOTHING
       RETURNING id, source_module
     ), queued AS (
       INSERT INTO event_outbox (event_id, source_module) SELECT id, source_module FROM stored
     )
     SELECT id FROM stored`,
    [JSON.stringify(events)],
  );
  const fresh = new Set(rows.map((r) => r.id));
  return events.filter((e) => fresh.has(e.id));
}

/** Puts events on the topic, keyed by id. The caller marks them published (markPublished). */
export async function sendEvents(producer: KafkaProducer, codec: TopicCodec, topic: string, events: SecurityEvent[]): Promise<void> {
  if (events.length === 0) return;
  await producer.send(
    // The record's Kafka timestamp is its append time, not the event time: events found in a replay of an
    // old recording would otherwise fall outside the topic's retention at once.
    events.map((e) => ({ topic, key: e.id, value: codec.encode('securityEvents', e), headers: { type: e.type } })),
  );
}

/** Records that events are on the topic; events not marked are published again (same ids) after a crash. */
export async function markPublished(db: Pool | PoolClient, ids: string[]): Promise<void> {
  if (ids.length > 0) await db.query('DELETE FROM event_outbox WHERE event_id = ANY($1::text[])', [ids]);
}

/** Puts events on the topic and marks them published at once. */
export async function publishEvents(pool: Pool, producer: KafkaProducer, codec: TopicCodec, topic: string, events: SecurityEvent[]): Promise<void> {
  await sendEvents(producer, codec, topic, events);
  await markPublished(pool, events.map((e) => e.id));
}

/**
 * Publishes what is stored but not on the topic (oldest first): at start-up everything pending, later only
 * rows older than `minAgeMs`, so a batch between its commit and its publish is not sent twice.
 */
export async function publishPending(pool: Pool, producer: KafkaProducer, codec: TopicCodec, topic: string, sourceModule: string, minAgeMs = 0, limit = 1_000): Promise<number> {
  let total = 0;
  for (;;) {
    const { rows } = await pool.query<{ body: SecurityEvent }>(
      `SELECT e.body FROM event_outbox AS o JOIN security_events AS e ON e.id = o.event_id
        WHERE o.source_module = $1 AND o.created_at <= now() - make_interval(secs => $2::double precision / 1000)
        ORDER BY o.created_at LIMIT $3`,
      [sourceModule, minAgeMs, limit],
    );
    if (rows.length === 0) return total;
    await publishEvents(pool, producer, codec, topic, rows.map((r) => r.body));
    total += rows.length;
  }
}
