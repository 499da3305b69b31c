import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KafkaProducer } from '../../../platform/kafka.ts';
import { createPool, inTransaction, migrate, type Pool } from '../../../platform/postgres.ts';
import { eventId } from '../../../events/event-id.ts';
import { markPublished, publishPending, sendEvents, storeEvents } from '../../../events/outbox.ts';
import type { SecurityEvent } from '../../../schemas/event.ts';
import { consumeUntil, testConfig, testKafka, testLog, unique, withAdmin } from '../../support/stack.ts';
import { jsonCodec } from '../../support/codec.ts';

describe('event outbox on the real PostGIS and broker', () => {
  const config = testConfig();
  const topic = unique('outbox-events');
  const producer = new KafkaProducer(testKafka('outbox-test'));
  let pool: Pool;
  const modules: string[] = [];

  beforeAll(async () => {
    await migrate(config.databaseUrl, testLog);
    pool = createPool(config.databaseUrl, 2);
    await withAdmin((admin) => admin.ensureTopics([{ name: topic, key: 'event id', partitions: 2, config: {}, description: '' }]));
  });
  afterAll(async () => {
    await producer.close();
    // The database is shared with other test files; leave no pending entries behind (the outbox rows go
    // with their events).
    await pool.query('DELETE FROM security_events WHERE source_module = ANY($1::text[])', [modules]);
    await pool.end();
    await withAdmin((admin) => admin.deleteTopics([topic]));
  });

  const module = () => {
    const name = unique('module');
    modules.push(name);
    return name;
  };
  const event = (sourceModule: string, n: number): SecurityEvent => ({
    id: eventId(`${sourceModule}:${n}`),
    type: 'zone_entry',
    timestamp: new Date(Date.UTC(2026, 10, 21, 7, 0, n)).toISOString(),
    category: 'maritime',
    severity: 'high',
    source_module: sourceModule,
    source_device: 'test',
    title: `event ${n}`,
    description: '',
    location: { zone: 'zone_test' },
    metadata: { n },
    requires_action: true,
    assigned_to: null,
    incident_id: null,
  });
  const pendingOf = async (sourceModule: string) =>
    (await pool.query<{ id: string }>('SELECT event_id AS id FROM event_outbox WHERE source_module = $1 ORDER BY event_id', [sourceModule])).rows.map((r) => r.id);

  it('stores each event once with one outbox entry, and a replay stores and queues nothing', async () => {
    const source = module();
    const events = [event(source, 1), event(source, 2)];
    const fresh = await inTransaction(pool, (client) => storeEvents(client, events));
    expect(fresh.map((e) => e.id)).toEqual(events.map((e) => e.id));
    expect(await pendingOf(source)).toEqual(events.map((e) => e.id).sort());

    await markPublished(pool, [events[0]!.id]);
    const replayed = await inTransaction(pool, (client) => storeEvents(client, [...events, event(source, 3)]));
    expect(replayed.map((e) => e.id)).toEqual([event(source, 3).id]);
    // The published one is not queued again; the unpublished one stays queued once.
    expect(await pendingOf(source)).toEqual([events[1]!.id, event(source, 3).id].sort());
    const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM security_events WHERE source_module = $1', [source]);
    expect(rows[0]!.n).toBe(3);
  });

  it('leaves no outbox entry behind when the transaction rolls back', async () => {
    const source = module();
    await expect(
      inTransaction(pool, async (client) => {
        await storeEvents(client, [event(source, 1)]);
        throw new Error('batch failed after storing');
      }),
    ).rejects.toThrow('batch failed after storing');
    expect(await pendingOf(source)).toEqual([]);
  });

  it('publishes what is pending to the topic keyed by event id, then forgets it', async () => {
    const source = module();
    const events = [event(source, 1), event(source, 2), event(source, 3)];
    for (const e of events) await inTransaction(pool, (client) => storeEvents(client, [e]));
    // One of them went out already (its mark was written): only the other two are sent.
    await sendEvents(producer, jsonCodec, topic, [events[0]!]);
    await markPublished(pool, [events[0]!.id]);

    // Rows younger than the minimum age belong to a batch still in progress and are left alone.
    expect(await publishPending(pool, producer, jsonCodec, topic, source, 60_000)).toBe(0);
    expect(await publishPending(pool, producer, jsonCodec, topic, source)).toBe(2);
    expect(await pendingOf(source)).toEqual([]);
    expect(await publishPending(pool, producer, jsonCodec, topic, source)).toBe(0);

    const seen = await consumeUntil(topic, (records) => records.length >= 3, { quietMs: 500 });
    expect(seen.map((r) => r.key)).toEqual(expect.arrayContaining(events.map((e) => e.id)));
    expect(seen).toHaveLength(3);
    const bodies = seen.map((r) => jsonCodec.decodeValue('securityEvents', r.value));
    expect(bodies.find((b) => b.id === events[2]!.id)).toEqual(events[2]);
  });

  it('deleting an event removes its outbox entry with it', async () => {
    const source = module();
    await inTransaction(pool, (client) => storeEvents(client, [event(source, 1)]));
    await pool.query('DELETE FROM security_events WHERE source_module = $1', [source]);
    expect(await pendingOf(source)).toEqual([]);
  });
});
