import { jsonCodec, valueOf } from '../../support/codec.ts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EventRelay, type RelayOptions } from '../../../events/relay.ts';
import { storeEvents } from '../../../events/store.ts';
import { KafkaProducer, type InRecord } from '../../../platform/kafka/index.ts';
import { registry } from '../../../platform/metrics.ts';
import { createPool, inTransaction, migrate, type Pool } from '../../../platform/postgres.ts';
import type { SecurityEvent } from '../../../schemas/event.ts';
import { testEvent, testModules } from '../../support/security-events.ts';
import { consumeUntil, testConfig, testKafka, testLog, unique, withAdmin } from '../../support/stack.ts';

describe('the event relay on the real PostGIS and broker', () => {
  const config = testConfig();
  const producer = new KafkaProducer(testKafka('relay-test'));
  const topics: string[] = [];
  const relays: EventRelay[] = [];
  let pool: Pool;
  const modules = testModules(() => pool);

  beforeAll(async () => {
    await migrate(config.databaseUrl, testLog);
    pool = createPool(config.databaseUrl, 6);
  });
  afterEach(async () => {
    await Promise.all(relays.splice(0).map((r) => r.stop()));
  });
  afterAll(async () => {
    await producer.close();
    await modules.cleanup();
    await pool.end();
    await withAdmin((admin) => admin.deleteTopics(topics));
  });

  async function freshTopic(): Promise<string> {
    // Named like the service's topic, so the test reads its values through the codec as consumers do.
    const topic = `${unique('relay')}-security.events`;
    topics.push(topic);
    await withAdmin((admin) => admin.ensureTopics([{ name: topic, key: 'event id', partitions: 3, config: {}, description: '' }]));
    return topic;
  }
  function relay(topic: string, opts: Partial<RelayOptions> = {}): EventRelay {
    const r = new EventRelay({ pool, producer, codec: jsonCodec, topic, log: testLog, ...opts });
    relays.push(r);
    return r;
  }
  /** Stores in a committed transaction and wakes nobody, as a producer that dies right after its commit. */
  const storeOnly = (events: SecurityEvent[]) => inTransaction(pool, (client) => storeEvents(client, events));
  const pendingOf = async (ids: string[]) =>
    (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM event_outbox WHERE event_id = ANY($1::text[])', [ids])).rows[0]!.n;
  /** Reads the topic until every id arrived and nothing more came for a while, so a duplicate would be seen. */
  const readAll = (topic: string, ids: string[], quietMs = 1_000) => {
    const wanted = new Set(ids);
    return consumeUntil(topic, (seen) => new Set(seen.map((r) => r.key).filter((k) => wanted.has(k!))).size === wanted.size, { quietMs });
  };
  const keysOf = (records: InRecord[], ids: string[]) => records.map((r) => r.key!).filter((k) => ids.includes(k));
  const metric = async (name: string, labels: Record<string, string> = {}) => {
    const values = (await registry.getSingleMetric(name)?.get())?.values ?? [];
    return values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value ?? 0;
  };

  it('publishes what two modules stored before a crash exactly once each, when a fresh relay starts', async () => {
    const topic = await freshTopic();
    const zones = modules.next('maritime.zones');
    const gate = modules.next('gate.lanes');
    const maritimeEvents = [1, 2, 3].map((n) => testEvent(zones, n));
    const gateEvents = [1, 2].map((n) => testEvent(gate, n, 'gate'));
    await storeOnly(maritimeEvents);
    await storeOnly(gateEvents);
    const ids = [...maritimeEvents, ...gateEvents].map((e) => e.id);
    expect(await pendingOf(ids)).toBe(5);

    const sealViolations = await metric('pss_events_published_total', { type: 'seal_violation' });
    // The outbox is shared with the files before this one: the start-up turn publishes whatever they left
    // pending too (a gate test stores seal violations without a relay), so those count as well.
    const { rows: [left] } = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM event_outbox o JOIN security_events e ON e.id = o.event_id WHERE e.type = 'seal_violation' AND NOT (e.id = ANY($1))`,
      [ids],
    );
    // A long sweep interval: only the start-up turn can publish them.
    relay(topic, { sweepEveryMs: 600_000 }).start();
    const seen = await readAll(topic, ids);
    expect(keysOf(seen, ids).sort()).toEqual([...ids].sort());
    const bodies = seen.filter((r) => ids.includes(r.key!)).map((r) => valueOf(r) as SecurityEvent);
    expect(bodies.find((b) => b.id === gateEvents[1]!.id)).toEqual(gateEvents[1]);
    expect(seen.find((r) => r.key === gateEvents[0]!.id)!.headers.type).toBe('seal_violation');
    expect(await pendingOf(ids)).toBe(0);
    expect(await metric('pss_events_published_total', { type: 'seal_violation' })).toBe(sealViolations + 2 + (left?.n ?? 0));
  });

  it('publishes promptly when woken after a commit, and keeps a batch in stored order', async () => {
    const topic = await freshTopic();
    const source = modules.next();
    const r = relay(topic, { sweepEveryMs: 600_000 });
    r.start();
    await new Promise((resolve) => setTimeout(resolve, 200)); // past its start-up turn, idle until woken

    // One partition's share of a 30-event batch must arrive in the batch's order.
    const events = Array.from({ length: 30 }, (_, n) => testEvent(source, n));
    await storeOnly(events);
    const woken = performance.now();
    r.wake();
    const ids = events.map((e) => e.id);
    const seen = await readAll(topic, ids, 0);
    expect(keysOf(seen, ids).sort()).toEqual([...ids].sort());
    expect(performance.now() - woken).toBeLessThan(5_000);
    expect(await pendingOf(ids)).toBe(0);
    for (const partition of new Set(seen.map((s) => s.partition))) {
      const order = keysOf(seen.filter((s) => s.partition === partition), ids);
      expect(order).toEqual(ids.filter((id) => order.includes(id)));
    }
  });

  it('sweeps what nobody woke it for once it is old enough, and not before', async () => {
    const topic = await freshTopic();
    const source = modules.next();
    relay(topic, { sweepEveryMs: 100, sweepMinAgeMs: 1_500 }).start();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const events = [testEvent(source, 1), testEvent(source, 2)];
    await storeOnly(events);
    const ids = events.map((e) => e.id);
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(await pendingOf(ids)).toBe(2);
    expect(await metric('pss_events_oldest_pending_seconds')).toBeGreaterThan(0.4);
    const seen = await readAll(topic, ids, 500);
    expect(keysOf(seen, ids).sort()).toEqual([...ids].sort());
  });

  it('two relays working the same outbox at once publish each event once', async () => {
    const topic = await freshTopic();
    const source = modules.next();
    const events = Array.from({ length: 600 }, (_, n) => testEvent(source, n));
    const ids = events.map((e) => e.id);
    // Small claims, so both relays are in the outbox at the same time for many turns.
    const a = relay(topic, { batchSize: 20, sweepEveryMs: 600_000 });
    const b = relay(topic, { batchSize: 20, sweepEveryMs: 600_000 });
    a.start();
    b.start();
    for (let i = 0; i < events.length; i += 100) {
      await storeOnly(events.slice(i, i + 100));
      a.wake();
      b.wake();
    }
    const seen = await readAll(topic, ids, 1_500);
    const keys = keysOf(seen, ids);
    expect(keys.length).toBe(ids.length);
    expect(new Set(keys).size).toBe(ids.length);
    expect(await pendingOf(ids)).toBe(0);
  });

  it('publishes an event as operators see it when they changed it before publication', async () => {
    const topic = await freshTopic();
    const source = modules.next();
    const [event] = await storeOnly([testEvent(source, 1)]);
    await pool.query(`INSERT INTO event_triage (event_id, requires_action, assigned_to, updated_by) VALUES ($1, false, 'duty.officer', 'key_test')`, [event!.id]);
    relay(topic, { sweepEveryMs: 600_000 }).start();
    const seen = await readAll(topic, [event!.id], 0);
    const published = valueOf(seen.find((r) => r.key === event!.id)!) as SecurityEvent;
    expect(published).toEqual({ ...event, requires_action: false, assigned_to: 'duty.officer' });
  });

  it('reports itself stuck while it cannot publish, and leaves the events in the outbox', async () => {
    const source = modules.next();
    const [event] = await storeOnly([testEvent(source, 1)]);
    // A topic that does not exist (and is not created on demand): every send fails, as with a lost broker.
    const r = relay(unique('missing-topic'), { stuckAfterMs: 300, sweepEveryMs: 600_000 });
    await r.check();
    r.start();
    await expect.poll(() => r.check().then(() => 'healthy', (err: Error) => err.message), { timeout: 20_000, interval: 200 }).toMatch(/has not finished a turn/);
    await r.stop();
    expect(await pendingOf([event!.id])).toBe(1);
    // Cleared, so the next relay of this file does not publish it to its topic.
    await pool.query('DELETE FROM event_outbox WHERE event_id = $1', [event!.id]);
  });
});
