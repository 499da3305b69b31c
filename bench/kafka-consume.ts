// Kafka consume path benchmark (issue 22): how fast each client hands the service's position records to a
// handler, as the zone processor and the positions sink read `ais.positions`.
//
//   npm run bench kafka-consume
//
// Workload: a fresh 6-partition topic preloaded with N (300,000) real-format position records (the codec's
// encoding of a VesselPosition, about 260 bytes, keyed by MMSI, 10,000 vessels). Each row reads all of them
// through a fresh consumer group from the earliest offset, decodes every value with the codec, and commits
// after each batch, as our consumers do; the figure is records per second from the first record handed over
// to the last. Rows:
//   - `platform/kafka` KafkaConsumer: the service's consumer (whichever @platformatic/kafka is installed),
//     batches of up to 10,000 as the zone processor;
//   - Confluent's librdkafka client (@confluentinc/kafka-javascript), when BENCH_CONFLUENT_MODULE names a
//     built copy of the package (docs/design-notes.md "Kafka client" says how it was built): its native
//     consume(n) batch API and its KafkaJS-compatible eachBatch API. It is not a dependency of the service
//     (see docs/design-notes.md "Kafka client"); this benchmark only measures it.
// Environment: PSS_KAFKA_BROKERS (127.0.0.1:9092), BENCH_MESSAGES (300000), BENCH_RUNS (3), BENCH_CONFLUENT_MODULE.
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { createCodec } from '../platform/codec/index.ts';
import { KafkaAdmin, KafkaConsumer, KafkaProducer } from '../platform/kafka/index.ts';
import { createLogger } from '../platform/log.ts';
import type { VesselPosition } from '../schemas/ais.ts';
import { topicNames } from '../platform/topics.ts';

const BROKERS = (process.env.PSS_KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
const N = Number(process.env.BENCH_MESSAGES ?? 300_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const VESSELS = 10_000;
const BATCH = 10_000;
const TIMEOUT_MS = 180_000;

const log = createLogger('silent');
const kafka = { brokers: BROKERS, clientId: 'pss-bench-consume', log };
// PSS_POSITION_FORMAT=json measures the plain JSON values (the default is the service's, binary).
const codec = await createCodec('', topicNames('bench-'), process.env.PSS_POSITION_FORMAT === 'json' ? 'json' : 'binary');

function position(i: number): VesselPosition {
  const v = i % VESSELS;
  const at = new Date(Date.UTC(2026, 10, 20) + i * 10).toISOString();
  return {
    kind: 'position', msg_type: 1, mmsi: 200_000_000 + v, source: 'bench', reported_at: at, received_at: at, raw: ['!AIVDM,1,1,,A,13aEOK?P00PD2wVMdLDRhgvL289?,0*26'],
    lat: 55.5 + (v % 300) / 1000, lon: 12.4 + (i % 500) / 1000, sog: 5 + (v % 10), cog: 90, heading: 90,
  };
}

interface Row {
  client: string;
  rates: number[];
}

const rate = (n: number, ms: number) => Math.round(n / (ms / 1000));

/** Counts records through the codec; resolves when all N were seen, with the first and last arrival times. */
class Sink {
  seen = 0;
  first = 0;
  last = 0;
  readonly #done: Promise<void>;
  #resolve!: () => void;
  constructor() {
    this.#done = new Promise((resolve) => (this.#resolve = resolve));
  }
  /** Values decoded as the service's consumers decode them (codec.decode), then counted. */
  async take(values: Buffer[]): Promise<void> {
    if (this.first === 0) this.first = performance.now();
    const { failures } = await codec.decode('aisPositions', values.map((value) => ({ value })));
    if (failures.length > 0) throw new Error('undecodable record');
    this.seen += values.length;
    if (this.seen >= N) {
      this.last = performance.now();
      this.#resolve();
    }
  }
  async done(): Promise<number> {
    const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`timed out with ${this.seen} of ${N} records`)), TIMEOUT_MS).unref());
    await Promise.race([this.#done, timeout]);
    return rate(N, this.last - this.first);
  }
}

async function platformRow(topic: string, run: number): Promise<number> {
  const sink = new Sink();
  const consumer = new KafkaConsumer(kafka, { groupId: `${topic}-plt-${run}`, topics: [topic], startAt: 'earliest', maxBatch: BATCH });
  await consumer.run(async (records) => sink.take(records.map((r) => r.value)));
  try {
    return await sink.done();
  } finally {
    await consumer.stop();
  }
}

// The Confluent client is loaded from a path, untyped: it is measured, not depended on.
/* eslint-disable @typescript-eslint/no-explicit-any */
function confluent(): any {
  const at = process.env.BENCH_CONFLUENT_MODULE;
  if (!at) return undefined;
  return createRequire(import.meta.url)(at);
}

async function confluentNativeRow(lib: any, topic: string, run: number): Promise<number> {
  const sink = new Sink();
  const consumer = new lib.KafkaConsumer({
    'group.id': `${topic}-rdk-${run}`, 'metadata.broker.list': BROKERS.join(','), 'enable.auto.commit': false,
    'fetch.wait.max.ms': 100,
  }, { 'auto.offset.reset': 'earliest' }); // a topic setting: given globally, the wrapper's empty topic config overrides it
  await new Promise<void>((resolve, reject) => consumer.connect({}, (err: Error | null) => (err ? reject(err) : resolve())));
  consumer.subscribe([topic]);
  let stopped = false;
  let errors = 0;
  const loop = async () => {
    while (!stopped) {
      // Errors before the group's first assignment (e.g. a state error) are transient: log once, go on.
      const messages: any[] = await new Promise((resolve) => consumer.consume(BATCH, (err: Error | null, m: any[]) => {
        if (err && errors++ < 3) console.log(`confluent consume: ${err.message}`);
        resolve(err ? [] : m);
      }));
      if (messages.length === 0) continue;
      await sink.take(messages.map((m) => m.value as Buffer));
      consumer.commit();
    }
  };
  const running = loop();
  try {
    return await sink.done();
  } finally {
    stopped = true;
    await running.catch(() => undefined);
    await new Promise<void>((resolve) => consumer.disconnect(() => resolve()));
  }
}

async function confluentKafkaJsRow(lib: any, topic: string, run: number): Promise<number> {
  const sink = new Sink();
  const client = new lib.KafkaJS.Kafka({ kafkaJS: { brokers: BROKERS, logLevel: lib.KafkaJS.logLevel.NOTHING } });
  const consumer = client.consumer({ kafkaJS: { groupId: `${topic}-kjs-${run}`, fromBeginning: true, autoCommit: false } });
  await consumer.connect();
  await consumer.subscribe({ topic });
  await consumer.run({
    eachBatch: async ({ batch }: any) => {
      await sink.take(batch.messages.map((m: any) => m.value as Buffer));
      const last = batch.messages[batch.messages.length - 1];
      if (last) await consumer.commitOffsets([{ topic, partition: batch.partition, offset: String(BigInt(last.offset) + 1n) }]);
    },
  });
  try {
    return await sink.done();
  } finally {
    await consumer.disconnect();
  }
}
/* eslint-enable @typescript-eslint/no-explicit-any */

async function main(): Promise<void> {
  const topic = `bench-consume-${Date.now().toString(36)}`;
  const admin = new KafkaAdmin(kafka);
  await admin.ensureTopics([{ name: topic, key: 'mmsi', partitions: 6, config: { 'cleanup.policy': 'delete', 'retention.ms': '3600000' }, description: 'bench' }]);
  const producer = new KafkaProducer(kafka);
  const t = performance.now();
  for (let i = 0; i < N; i += 5_000) {
    const records = [];
    for (let j = i; j < Math.min(N, i + 5_000); j++) {
      const p = position(j);
      records.push({ topic, key: String(p.mmsi), value: codec.encode('aisPositions', p) });
    }
    await producer.send(records);
  }
  console.log(`preloaded ${N.toLocaleString('en')} position records in ${Math.round(performance.now() - t)} ms; node ${process.version}`);

  const lib = confluent();
  const rows: Row[] = [{ client: 'platform/kafka KafkaConsumer (@platformatic/kafka)', rates: [] }];
  if (lib) rows.push({ client: `@confluentinc/kafka-javascript consume(${BATCH})`, rates: [] }, { client: '@confluentinc/kafka-javascript KafkaJS eachBatch', rates: [] });
  else console.log('BENCH_CONFLUENT_MODULE not set: the Confluent rows are skipped');
  // Interleaved, so a host that drifts colours every client alike.
  for (let run = 0; run < RUNS; run++) {
    rows[0]?.rates.push(await platformRow(topic, run));
    if (lib) {
      rows[1]?.rates.push(await confluentNativeRow(lib, topic, run));
      rows[2]?.rates.push(await confluentKafkaJsRow(lib, topic, run));
    }
    console.log(`run ${run + 1}: ${rows.map((r) => r.rates.at(-1)?.toLocaleString('en')).join(' | ')}`);
  }
  await producer.close();
  await admin.deleteTopics([topic]).catch(() => undefined);
  await admin.close();
  console.log('\n| client | records/s (each run) | median |\n|---|---|--:|');
  for (const r of rows) {
    const sorted = [...r.rates].sort((a, b) => a - b);
    console.log(`| ${r.client} | ${r.rates.map((x) => x.toLocaleString('en')).join(' / ')} | ${(sorted[Math.floor(sorted.length / 2)] ?? 0).toLocaleString('en')} |`);
  }
}

await main();
process.exit(0);
