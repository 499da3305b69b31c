// The shared outbox publisher (platform/outbox-publisher.ts) on the real Postgres and broker, with a
// scratch outbox table of this file's own: it publishes what is pending at start in batches and in order,
// wakes on a NOTIFY, retries a failed turn whole after its backoff, and its stop is bounded: with the
// broker unreachable, stop() returns by its deadline, logs the batch it abandoned (rows, outbox), and the
// rows stay in the outbox, unlocked, for the next publisher.
import net from 'node:net';
import { Writable } from 'node:stream';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KafkaProducer, type InRecord } from '../../../platform/kafka/index.ts';
import { withDeadline } from '../../../platform/deadline.ts';
import { createLogger } from '../../../platform/log.ts';
import { OutboxPublisher, type OutboxPublisherOptions, type OutboxSource } from '../../../platform/outbox-publisher.ts';
import { createPool, type Pool } from '../../../platform/postgres.ts';
import { consumeUntil, testConfig, testKafka, testLog, unique, withAdmin } from '../../support/stack.ts';

interface Row {
  /** bigint, as pg gives it: text. */
  seq: string;
  k: string;
  v: string;
}

const RUN = Math.random().toString(36).slice(2, 8);
const TABLE = `pss_test_outbox_${RUN}`;
const CHANNEL = `pss_test_outbox_${RUN}`;
const table = pg.escapeIdentifier(TABLE);
/** Failed turns of this file's publishers. */
const failedTurns = { count: 0, inc() {
  failedTurns.count++;
} };

describe('the outbox publisher on the real PostGIS and broker', () => {
  const config = testConfig();
  const topics: string[] = [];
  const producers: KafkaProducer[] = [];
  const publishers: OutboxPublisher<Row>[] = [];
  const producer = new KafkaProducer(testKafka('outbox-publisher-test'));
  let pool: Pool;

  beforeAll(async () => {
    pool = createPool(config.databaseUrl, 6);
    await pool.query(`CREATE TABLE ${table} (seq bigserial PRIMARY KEY, k text NOT NULL, v text NOT NULL)`);
  });
  afterEach(async () => {
    await Promise.all(publishers.splice(0).map((p) => p.stop()));
    await pool.query(`DELETE FROM ${table}`);
  });
  afterAll(async () => {
    // The unreachable broker's producer would wait out its retries: its close is not this file's subject.
    await Promise.all([producer, ...producers].map((p) => withDeadline(p.close(), 2_000).catch(() => undefined)));
    await pool.query(`DROP TABLE IF EXISTS ${table}`);
    await pool.end();
    await withAdmin((admin) => admin.deleteTopics(topics));
  });

  async function freshTopic(create = true): Promise<string> {
    const topic = unique('outbox-publisher');
    topics.push(topic);
    if (create) await withAdmin((admin) => admin.ensureTopics([{ name: topic, key: 'k', partitions: 3, config: {}, description: '' }]));
    return topic;
  }
  /** The scratch outbox: claimed oldest first, skipping another publisher's claim, deleted once sent. */
  const source = (topic: string, batchSize: number, claims: number[] = []): OutboxSource<Row> => ({
    claim: async (client) => {
      const { rows } = await client.query<Row>(`SELECT seq, k, v FROM ${table} ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED`, [batchSize]);
      claims.push(rows.length);
      return rows;
    },
    records: (rows) => rows.map((r) => ({ topic, key: r.k, value: r.v })),
    sent: async (client, rows) => void (await client.query(`DELETE FROM ${table} WHERE seq = ANY($1::bigint[])`, [rows.map((r) => r.seq)])),
  });
  function publisher(topic: string, opts: Partial<OutboxPublisherOptions<Row>> & { claims?: number[] } = {}): OutboxPublisher<Row> {
    const batchSize = opts.batchSize ?? 100;
    const p = new OutboxPublisher<Row>({
      name: 'test publisher', items: 'rows', outbox: TABLE, pool, producer, log: testLog, source: source(topic, batchSize, opts.claims),
      sweepEveryMs: 600_000, batchSize, backoff: { firstMs: 200, maxMs: 200 }, failedTurns, ...opts,
    });
    publishers.push(p);
    return p;
  }
  const insert = async (keys: string[]) => {
    await pool.query(`INSERT INTO ${table} (k, v) SELECT k, 'value of ' || k FROM unnest($1::text[]) WITH ORDINALITY AS t(k, n) ORDER BY n`, [keys]);
  };
  const left = async () => Number((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n);
  const keysOf = (records: InRecord[], keys: string[]) => records.map((r) => r.key!).filter((k) => keys.includes(k));
  const readAll = (topic: string, keys: string[], quietMs = 500) =>
    consumeUntil(topic, (seen) => new Set(keysOf(seen, keys)).size === keys.length, { quietMs });

  it('publishes what is pending at start in full batches, each key once and in stored order per partition', async () => {
    const topic = await freshTopic();
    const keys = Array.from({ length: 250 }, (_, n) => `k-${RUN}-${n % 7}-${n}`);
    await insert(keys);
    const claims: number[] = [];
    await publisher(topic, { claims }).start();
    await expect.poll(left, { timeout: 20_000 }).toBe(0);
    // Two full batches claim again; the short third ends the drain.
    expect(claims.slice(0, 3)).toEqual([100, 100, 50]);
    const seen = keysOf(await readAll(topic, keys), keys);
    expect(seen).toHaveLength(keys.length);
    expect(new Set(seen).size).toBe(keys.length);
    const records = await readAll(topic, keys, 0);
    for (const partition of new Set(records.map((r) => r.partition))) {
      const order = keysOf(records.filter((r) => r.partition === partition), keys);
      expect(order).toEqual(keys.filter((k) => order.includes(k)));
    }
  });

  it('publishes at once on a NOTIFY of its channel from another connection, with no sweep due', async () => {
    const topic = await freshTopic();
    const p = publisher(topic, { channel: CHANNEL });
    await p.start();
    await new Promise((resolve) => setTimeout(resolve, 300)); // past its start-up turn; the next sweep is 10 minutes away
    const keys = [`n-${RUN}-1`, `n-${RUN}-2`];
    await insert(keys);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await left()).toBe(2);
    await pool.query('SELECT pg_notify($1, $2)', [CHANNEL, '']);
    await expect.poll(left, { timeout: 10_000 }).toBe(0);
    expect(keysOf(await readAll(topic, keys, 0), keys).sort()).toEqual(keys);
  });

  it('keeps the rows of a failed turn and publishes them at a retry after its backoff', async () => {
    // Not created yet: every send fails (the producer gives up after 1 s), as with a broker that refuses the topic.
    const topic = await freshTopic(false);
    const shortLived = new KafkaProducer({ ...testKafka('outbox-publisher-failing'), deliveryTimeoutMs: 1_000 });
    producers.push(shortLived);
    const keys = [`f-${RUN}-1`, `f-${RUN}-2`, `f-${RUN}-3`];
    await insert(keys);
    const before = failedTurns.count;
    await publisher(topic, { producer: shortLived }).start();
    await expect.poll(() => failedTurns.count, { timeout: 20_000 }).toBeGreaterThanOrEqual(before + 2);
    expect(await left()).toBe(3);
    await withAdmin((admin) => admin.ensureTopics([{ name: topic, key: 'k', partitions: 3, config: {}, description: '' }]));
    await expect.poll(left, { timeout: 30_000 }).toBe(0);
    expect(keysOf(await readAll(topic, keys, 0), keys).sort()).toEqual(keys);
  });

  it('stops by its deadline with the broker unreachable, logs the abandoned batch, and leaves its rows to the next publisher', async () => {
    // A port nothing listens on: every connection is refused, and the producer retries for a minute.
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const unreachable = new KafkaProducer({ brokers: [`127.0.0.1:${port}`], clientId: 'outbox-publisher-lost', log: testLog, deliveryTimeoutMs: 60_000 });
    producers.push(unreachable);
    const lines: Record<string, unknown>[] = [];
    const log = createLogger('info', new Writable({ write: (chunk, _enc, done) => void (lines.push(JSON.parse(String(chunk)) as Record<string, unknown>), done()) }));

    const topic = await freshTopic();
    const keys = Array.from({ length: 40 }, (_, n) => `s-${RUN}-${n}`);
    await insert(keys);
    const p = publisher(topic, { producer: unreachable, log });
    await p.start();
    await expect.poll(() => p.sending, { timeout: 10_000 }).toBe(40);

    const began = performance.now();
    await p.stop(Date.now() + 1_000);
    const took = performance.now() - began;
    // Returned at its deadline, not after the producer's minute of retries.
    expect(took).toBeGreaterThanOrEqual(900);
    expect(took).toBeLessThan(5_000);
    const abandoned = lines.filter((l) => l.outbox === TABLE);
    expect(abandoned).toHaveLength(1);
    expect(abandoned[0]).toMatchObject({ level: 40, outbox: TABLE, rows: 40 });
    expect(abandoned[0]!.msg).toMatch(/test publisher stopped at its deadline with 40 rows .* stay in the outbox/);

    // The claim rolled back: every row is there and free to claim, and its client went back to the pool.
    expect(await left()).toBe(40);
    await expect.poll(async () => (await pool.query(`SELECT seq FROM ${table} FOR UPDATE NOWAIT`)).rowCount, { timeout: 5_000 }).toBe(40);
    await expect.poll(() => pool.totalCount - pool.idleCount, { timeout: 5_000 }).toBe(0);

    // After a restart (a publisher with a reachable broker) they are published.
    await publisher(topic).start();
    await expect.poll(left, { timeout: 20_000 }).toBe(0);
    expect(keysOf(await readAll(topic, keys, 0), keys).sort()).toEqual([...keys].sort());
  });
});
