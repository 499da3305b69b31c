/**
 * Kafka client benchmark: kafkajs 2.2.4 vs @platformatic/kafka 1.x on the same workload.
 *
 *   infra/kafka.sh start
 *   node --import tsx bench/kafka-clients.ts
 *
 * Workload per row: a fresh 6-partition topic; produce N (100,000) ~100-byte JSON messages keyed
 * by MMSI with acks=all in batches (many messages per send call); then a fresh consumer group reads
 * them all from the beginning, parses each value, and commits offsets manually (every
 * COMMIT_EVERY messages and at the end). Each row is checked: topic end offsets must add up to N
 * after producing, every message id must be seen, and the committed offsets must add up to N.
 *
 * Findings this checks (see the report printed at the end): @platformatic/kafka 1.x must not
 * have several idempotent send() calls in flight (sequence numbers are assigned on response), and
 * should not produce to a topic whose partitions are not writable yet (tagged-field parsing).
 *
 * Environment: PSS_KAFKA_BROKERS (127.0.0.1:9092), BENCH_MESSAGES (100000), BENCH_RUNS (2),
 * BENCH_BATCH (1000 messages per send), BENCH_IN_FLIGHT (4 sends in flight),
 * BENCH_COMMIT_EVERY (5000), BENCH_PITFALL (1: also show the idempotent + concurrent send()
 * data loss of @platformatic/kafka 1.x; 0 to skip).
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, Partitioners, logLevel } from 'kafkajs';
import {
  Admin,
  Consumer,
  ConfigResourceTypes,
  MessagesStreamFallbackModes,
  MessagesStreamModes,
  ProduceAcks,
  Producer,
  compatibilityPartitioner,
  stringDeserializers,
  stringSerializers,
} from '@platformatic/kafka';

const BROKERS = (process.env.PSS_KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
const N = Number(process.env.BENCH_MESSAGES ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 2);
const BATCH = Number(process.env.BENCH_BATCH ?? 1000);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 4);
const COMMIT_EVERY = Number(process.env.BENCH_COMMIT_EVERY ?? 5000);
const PITFALL = (process.env.BENCH_PITFALL ?? '1') !== '0';
const PARTITIONS = 6;
const CONSUME_TIMEOUT_MS = 120_000;
// Fetch sizes as kafkajs' defaults, for both clients (@platformatic/kafka's default per-partition
// limit is the whole 10 MB, which makes the first fetch hold nearly all 100k messages).
const MAX_BYTES = 10 * 1024 * 1024;
const MAX_BYTES_PER_PARTITION = 1024 * 1024;
const TOPIC_CONFIGS = { 'cleanup.policy': 'delete', 'retention.ms': String(3_600_000) };

// ---------------------------------------------------------------------------------------------
// Workload: the same keys and values for every client, generated once.
const KEYS: string[] = [];
const VALUES: string[] = [];
{
  const t0 = Date.UTC(2026, 0, 1);
  for (let i = 0; i < N; i++) {
    const mmsi = 244_000_000 + (i % 5000);
    KEYS.push(String(mmsi));
    VALUES.push(JSON.stringify({
      id: i,
      mmsi,
      ts: new Date(t0 + i * 1000).toISOString(),
      lat: +(51.9 + (i % 1000) / 10_000).toFixed(5),
      lon: +(4.0 + (i % 777) / 10_000).toFixed(5),
      sog: (i % 200) / 10,
      cog: i % 360,
    }));
  }
}
const AVG_BYTES = Math.round(VALUES.reduce((s, v) => s + v.length, 0) / N);

/** Runs fn over batch indexes with `width` calls in flight. */
async function pool(batches: number, width: number, fn: (b: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(width, batches) }, async () => {
    while (next < batches) {
      const b = next++;
      await fn(b);
    }
  }));
}
const batchCount = Math.ceil(N / BATCH);
const batchRange = (b: number): [number, number] => [b * BATCH, Math.min(N, (b + 1) * BATCH)];

/** What a consumer does with a message: parse it, count it, remember its next offset. */
class Sink {
  seen = new Uint8Array(N);
  distinct = 0;
  duplicates = 0;
  firstAt = 0;
  doneAt = 0;
  private pending = new Map<number, bigint>();
  private sinceCommit = 0;

  take(partition: number, offset: bigint, value: string | Buffer | undefined | null): void {
    if (this.firstAt === 0) this.firstAt = performance.now();
    const { id } = JSON.parse(String(value)) as { id: number };
    if (this.seen[id]) this.duplicates++;
    else { this.seen[id] = 1; this.distinct++; if (this.distinct === N) this.doneAt = performance.now(); }
    this.pending.set(partition, offset + 1n);
    this.sinceCommit++;
  }
  get done(): boolean { return this.distinct >= N; }
  get commitDue(): boolean { return this.sinceCommit >= COMMIT_EVERY || (this.done && this.pending.size > 0); }
  /** Offsets to commit now (next offset to read, per partition). */
  drain(): Array<[number, bigint]> {
    const out = [...this.pending.entries()];
    this.pending.clear();
    this.sinceCommit = 0;
    return out;
  }
}

interface Row {
  client: string;
  mode: string;
  run: number;
  produceRate: number;
  consumeRate: number;
  steadyRate: number;
  firstMsgMs: number;
  check: string;
}

const rate = (n: number, ms: number): number => Math.round(n / (ms / 1000));
const stamp = (): string => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

// ---------------------------------------------------------------------------------------------
// kafkajs

async function kafkajsRow(run: number): Promise<Row> {
  const kafka = new Kafka({ clientId: 'bench-kafkajs', brokers: BROKERS, logLevel: logLevel.WARN });
  const admin = kafka.admin();
  await admin.connect();
  const topic = `bench.kafkajs.${stamp()}`;
  const groupId = `${topic}.group`;
  await admin.createTopics({
    waitForLeaders: true,
    topics: [{
      topic, numPartitions: PARTITIONS, replicationFactor: 1,
      configEntries: Object.entries(TOPIC_CONFIGS).map(([name, value]) => ({ name, value })),
    }],
  });
  // Same readiness rule as for @platformatic/kafka: every partition answers ListOffsets.
  for (let i = 0; i < 200 && !(await admin.fetchTopicOffsets(topic).then((o) => o.length === PARTITIONS, () => false)); i++) await sleep(25);
  try {
    // Produce: idempotent (kafkajs serialises idempotent requests per broker itself, so several
    // send() calls in flight are safe), acks=all, BATCH messages per send().
    const producer = kafka.producer({
      idempotent: true, allowAutoTopicCreation: false, createPartitioner: Partitioners.DefaultPartitioner,
    });
    await producer.connect();
    const p0 = performance.now();
    await pool(batchCount, IN_FLIGHT, async (b) => {
      const [from, to] = batchRange(b);
      const messages = [];
      for (let i = from; i < to; i++) messages.push({ key: KEYS[i]!, value: VALUES[i]! });
      await producer.send({ topic, acks: -1, messages });
    });
    const produceMs = performance.now() - p0;
    await producer.disconnect();
    const written = (await admin.fetchTopicOffsets(topic)).reduce((s, p) => s + Number(p.high) - Number(p.low), 0);

    // Consume through a group, from the beginning, manual commits.
    const sink = new Sink();
    const consumer = kafka.consumer({
      groupId, maxWaitTimeInMs: 500, maxBytes: MAX_BYTES, maxBytesPerPartition: MAX_BYTES_PER_PARTITION, allowAutoTopicCreation: false,
    });
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => { finish = resolve; });
    const c0 = performance.now();
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch, heartbeat }) => {
        for (const m of batch.messages) sink.take(batch.partition, BigInt(m.offset), m.value);
        if (sink.commitDue) {
          await consumer.commitOffsets(sink.drain().map(([partition, offset]) => ({ topic, partition, offset: offset.toString() })));
        }
        await heartbeat();
        if (sink.done) finish();
      },
    });
    const timedOut = await Promise.race([finished.then(() => false), sleep(CONSUME_TIMEOUT_MS, true, { ref: false })]);
    const consumeMs = sink.doneAt - c0;
    await consumer.disconnect();
    const committed = (await admin.fetchOffsets({ groupId, topics: [topic] }))
      .flatMap((t) => t.partitions).reduce((s, p) => s + Math.max(0, Number(p.offset)), 0);
    await admin.deleteGroups([groupId]).catch(() => undefined);
    return {
      client: 'kafkajs 2.2.4', mode: `send() idempotent, ${IN_FLIGHT} in flight`, run,
      produceRate: rate(N, produceMs), consumeRate: timedOut || !sink.done ? 0 : rate(N, consumeMs),
      steadyRate: sink.done ? rate(N, sink.doneAt - sink.firstAt) : 0,
      firstMsgMs: Math.round(sink.firstAt - c0),
      check: verdict(written, sink, committed),
    };
  } finally {
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();
  }
}

// ---------------------------------------------------------------------------------------------
// @platformatic/kafka

type PltMode = 'send-idempotent' | 'stream-idempotent' | 'send-concurrent';
const PLT_MODE_LABEL: Record<PltMode, string> = {
  'send-idempotent': 'send() idempotent, 1 in flight',
  'stream-idempotent': 'asStream() idempotent',
  'send-concurrent': `send() acks=all not idempotent, ${IN_FLIGHT} in flight`,
};

async function pltCreateTopic(admin: Admin, topic: string, configs: Record<string, string>): Promise<void> {
  await admin.createTopics({
    topics: [topic], partitions: PARTITIONS, replicas: 1,
    configs: Object.entries(configs).map(([name, value]) => ({ name, value })),
  });
  // createTopics returns before the partitions can take writes: metadata may already name a
  // leader while the broker still answers NOT_LEADER_OR_FOLLOWER. @platformatic/kafka 1.x cannot
  // parse that Produce error response (Kafka 3.7+ adds the new leader as tagged fields, and its
  // Reader.readTaggedFields is wrong before 2.x), fails the whole send() and retries it after
  // retryDelay (1 s), duplicating the partitions that had succeeded unless the producer is
  // idempotent. So wait until ListOffsets works on every partition before producing.
  for (let i = 0; i < 200; i++) {
    const md = await admin.metadata({ topics: [topic], forceUpdate: true }).catch(() => undefined);
    const t = md?.topics.get(topic);
    if (t && t.partitionsCount === PARTITIONS && t.partitions.every((p) => p.leader >= 0) &&
        (await pltEndOffsets(admin, topic).then(() => true, () => false))) return;
    await sleep(25);
  }
  throw new Error(`topic ${topic} did not become writable`);
}

async function pltEndOffsets(admin: Admin, topic: string): Promise<number> {
  const res = await admin.listOffsets({
    topics: [{ name: topic, partitions: Array.from({ length: PARTITIONS }, (_, p) => ({ partitionIndex: p, timestamp: -1n })) }],
  });
  return res.flatMap((t) => t.partitions).reduce((s, p) => s + Number(p.offset), 0);
}

async function pltProduce(topic: string, mode: PltMode): Promise<number> {
  const idempotent = mode !== 'send-concurrent';
  const producer = new Producer({
    clientId: 'bench-platformatic',
    bootstrapBrokers: BROKERS,
    serializers: stringSerializers,
    acks: ProduceAcks.ALL,
    idempotent,
    partitioner: compatibilityPartitioner, // same murmur2 placement as kafkajs / the Java client
  });
  const p0 = performance.now();
  try {
    if (mode === 'stream-idempotent') {
      // highWaterMark: the Writable default (16 objects) would cap every flush at 16 messages.
      const stream = producer.asStream({ batchSize: BATCH, batchTime: 10, highWaterMark: BATCH * IN_FLIGHT });
      let failure: Error | undefined;
      stream.on('error', (e: Error) => { failure = e; });
      for (let i = 0; i < N; i++) {
        if (!stream.write({ topic, key: KEYS[i]!, value: VALUES[i]! })) {
          await new Promise<void>((resolve) => stream.once('drain', () => resolve()));
        }
        if (failure) throw failure;
      }
      await stream.close();
      if (failure) throw failure;
    } else {
      // @platformatic/kafka 1.x assigns idempotent sequence numbers when a response arrives, so
      // concurrent send() calls to the same partition reuse a sequence and the broker drops them
      // as duplicates while every call resolves. Idempotent => one send() at a time.
      await pool(batchCount, idempotent ? 1 : IN_FLIGHT, async (b) => {
        const [from, to] = batchRange(b);
        const messages = [];
        for (let i = from; i < to; i++) messages.push({ topic, key: KEYS[i]!, value: VALUES[i]! });
        await producer.send({ messages });
      });
    }
    return performance.now() - p0;
  } finally {
    await producer.close(true);
  }
}

async function pltConsume(admin: Admin, topic: string): Promise<{ sink: Sink; c0: number; timedOut: boolean; committed: number }> {
  const groupId = `${topic}.group`;
  const sink = new Sink();
  const consumer = new Consumer({
    clientId: 'bench-platformatic',
    groupId,
    bootstrapBrokers: BROKERS,
    deserializers: stringDeserializers,
    autocommit: false,
    maxWaitTime: 500,
    maxBytes: MAX_BYTES,
    maxBytesPerPartition: MAX_BYTES_PER_PARTITION,
  });
  const c0 = performance.now();
  let timedOut = false;
  try {
    const stream = await consumer.consume({
      topics: [topic],
      mode: MessagesStreamModes.COMMITTED, // resume from the group's commits...
      fallbackMode: MessagesStreamFallbackModes.EARLIEST, // ...or from the beginning when there are none
    });
    const timer = setTimeout(() => { timedOut = true; stream.destroy(new Error('consume timeout')); }, CONSUME_TIMEOUT_MS);
    try {
      for await (const m of stream) {
        sink.take(m.partition, m.offset, m.value);
        if (sink.commitDue) {
          await consumer.commit({
            offsets: sink.drain().map(([partition, offset]) => ({ topic, partition, offset, leaderEpoch: -1 })),
          });
        }
        if (sink.done) break;
      }
    } catch (e) {
      if (!timedOut) throw e;
    } finally {
      clearTimeout(timer);
    }
  } finally {
    await consumer.close(true);
  }
  const offsets = await admin.listConsumerGroupOffsets({ groups: [groupId] });
  const committed = offsets.flatMap((g) => g.topics).flatMap((t) => t.partitions)
    .reduce((s, p) => s + Math.max(0, Number(p.committedOffset)), 0);
  await admin.deleteGroups({ groups: [groupId] }).catch(() => undefined);
  return { sink, c0, timedOut, committed };
}

async function platformaticRow(run: number, mode: PltMode): Promise<Row> {
  const admin = new Admin({ clientId: 'bench-platformatic-admin', bootstrapBrokers: BROKERS });
  const topic = `bench.platformatic.${stamp()}`;
  try {
    await pltCreateTopic(admin, topic, TOPIC_CONFIGS);
    const produceMs = await pltProduce(topic, mode);
    const written = await pltEndOffsets(admin, topic);
    const { sink, c0, timedOut, committed } = await pltConsume(admin, topic);
    return {
      client: 'platformatic 1.x', mode: PLT_MODE_LABEL[mode], run,
      produceRate: rate(N, produceMs), consumeRate: timedOut || !sink.done ? 0 : rate(N, sink.doneAt - c0),
      steadyRate: sink.done ? rate(N, sink.doneAt - sink.firstAt) : 0,
      firstMsgMs: Math.round(sink.firstAt - c0),
      check: verdict(written, sink, committed),
    };
  } finally {
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.close();
  }
}

/** Shows the 1.x pitfall: idempotent producer + several send() in flight loses messages silently. */
async function pltPitfall(): Promise<string> {
  const admin = new Admin({ clientId: 'bench-platformatic-admin', bootstrapBrokers: BROKERS });
  const topic = `bench.pitfall.${stamp()}`;
  const n = Math.min(N, 20_000);
  try {
    await pltCreateTopic(admin, topic, TOPIC_CONFIGS);
    const producer = new Producer({
      clientId: 'bench-pitfall', bootstrapBrokers: BROKERS, serializers: stringSerializers,
      acks: ProduceAcks.ALL, idempotent: true, partitioner: compatibilityPartitioner,
    });
    let acked = 0;
    let rejected = 0;
    const errors = new Set<string>();
    await pool(Math.ceil(n / BATCH), IN_FLIGHT, async (b) => {
      const messages = [];
      for (let i = b * BATCH; i < Math.min(n, (b + 1) * BATCH); i++) messages.push({ topic, key: KEYS[i]!, value: VALUES[i]! });
      try {
        await producer.send({ messages });
        acked += messages.length;
      } catch (e) {
        rejected += messages.length;
        const inner = (e as { errors?: Array<{ errors?: Array<{ apiId?: string }> }> }).errors ?? [];
        for (const x of inner.flatMap((r) => r.errors ?? [])) errors.add(x.apiId ?? 'unknown');
        if (!inner.length) errors.add((e as Error).message);
      }
    });
    await producer.close(true);
    const written = await pltEndOffsets(admin, topic);
    return `idempotent + ${IN_FLIGHT} send() in flight: ${n} sent, ${acked} acknowledged, ${rejected} rejected` +
      `${errors.size ? ` (${[...errors].join(', ')})` : ''}, ${written} on the topic`;
  } finally {
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.close();
  }
}

/** Creates a compacted topic with configs through @platformatic/kafka and reads them back. */
async function pltAdminConfigsCheck(): Promise<string> {
  const admin = new Admin({ clientId: 'bench-platformatic-admin', bootstrapBrokers: BROKERS });
  const topic = `bench.compacted.${stamp()}`;
  const wanted = { 'cleanup.policy': 'compact', 'retention.ms': '604800000', 'min.cleanable.dirty.ratio': '0.1', 'segment.ms': '3600000' };
  try {
    await pltCreateTopic(admin, topic, wanted);
    const [desc] = await admin.describeConfigs({
      resources: [{ resourceType: ConfigResourceTypes.TOPIC, resourceName: topic, configurationKeys: Object.keys(wanted) }],
    });
    const got = Object.fromEntries((desc?.configs ?? []).map((c) => [c.name, c.value]));
    const ok = Object.entries(wanted).every(([k, v]) => got[k] === v);
    return `compacted topic configs ${ok ? 'applied' : 'NOT applied'}: ${JSON.stringify(got)}`;
  } finally {
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.close();
  }
}

// ---------------------------------------------------------------------------------------------

function verdict(written: number, sink: Sink, committed: number): string {
  const problems: string[] = [];
  if (written !== N) problems.push(`written ${written}`);
  if (sink.distinct !== N) problems.push(`read ${sink.distinct}`);
  if (sink.duplicates) problems.push(`dups ${sink.duplicates}`);
  if (committed !== N) problems.push(`committed ${committed}`);
  return problems.length ? `FAIL ${problems.join(', ')}` : 'ok';
}

function printTable(rows: Row[]): void {
  const head = ['client', 'produce mode', 'run', 'produce msg/s', 'consume msg/s', 'consume after 1st msg/s', '1st msg ms', 'check'];
  const num = (n: number): string => n.toLocaleString('en-US');
  const body = rows.map((r) => [r.client, r.mode, String(r.run), num(r.produceRate),
    num(r.consumeRate), num(r.steadyRate), String(r.firstMsgMs), r.check]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]): string => `| ${cells.map((c, i) => (i >= 2 && i <= 6 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(' | ')} |`;
  console.log(line(head));
  console.log(`|${widths.map((w, i) => (i >= 2 && i <= 6 ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`);
  for (const b of body) console.log(line(b));
}

async function main(): Promise<void> {
  console.log(`Kafka client benchmark: ${N.toLocaleString('en-US')} messages of ~${AVG_BYTES} bytes, ${PARTITIONS} partitions, ` +
    `${BATCH} messages per send, acks=all, consumer group from earliest with manual commits every ${COMMIT_EVERY}; ` +
    `brokers ${BROKERS.join(',')}; node ${process.version}`);
  const rows: Row[] = [];
  for (let run = 1; run <= RUNS; run++) {
    for (const step of [
      () => kafkajsRow(run),
      () => platformaticRow(run, 'send-idempotent'),
      () => platformaticRow(run, 'stream-idempotent'),
      () => platformaticRow(run, 'send-concurrent'),
    ]) {
      const row = await step();
      console.log(`  ${row.client} | ${row.mode} | run ${run}: produce ${row.produceRate} msg/s, consume ${row.consumeRate} msg/s, ${row.check}`);
      rows.push(row);
    }
  }
  console.log('');
  printTable(rows);
  console.log('');
  console.log(`@platformatic/kafka admin: ${await pltAdminConfigsCheck()}`);
  if (PITFALL) console.log(`@platformatic/kafka pitfall: ${await pltPitfall()}`);
  if (rows.some((r) => r.check !== 'ok')) process.exitCode = 1;
}

await main();
// Every client is closed by now; if something still holds the event loop, say what and leave.
setTimeout(() => {
  console.error('bench: still running 10 s after finishing; open handles:', process.getActiveResourcesInfo());
  process.exit(process.exitCode ?? 1);
}, 10_000).unref();
