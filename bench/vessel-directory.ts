// Vessel directory start-up (issue 13, item 2): the zone processor's directory loads the vessels table and
// follows ais.static from the static sink's committed offsets; before, it replayed the whole compacted
// topic at every start. This measures both ways of filling a directory of VESSELS vessels, through the
// static sink as in service (docs/vessels.md, decision 8).
// Run: npm run bench vessel-directory   (PSS_BENCH_VESSELS, default 100,000)
import { loadConfig } from '../app/config.ts';
import { createCodec } from '../platform/codec/index.ts';
import type { ServiceContext } from '../platform/context.ts';
import { KafkaAdmin, KafkaProducer } from '../platform/kafka/index.ts';
import { createLogger } from '../platform/log.ts';
import { createPool, migrate } from '../platform/postgres.ts';
import { topicNames, topicSpecs } from '../platform/topics.ts';
import { VesselDirectory, followVesselDirectory } from '../processors/maritime/vessel-directory.ts';
import { startStaticSink, staticSinkGroup } from '../processors/vessels/static-sink.ts';
import type { VesselStatic } from '../schemas/ais.ts';
import { freshBenchDatabase } from './support/bench-database.ts';

const VESSELS = Number(process.env.PSS_BENCH_VESSELS ?? 100_000);
const log = createLogger(process.env.PSS_BENCH_LOG_LEVEL ?? 'silent');

async function main(): Promise<void> {
  const databaseUrl = await freshBenchDatabase('pss_bench_directory');
  const prefix = `bench-${Date.now().toString(36)}-`;
  const config = loadConfig({ PSS_DATABASE_URL: databaseUrl, PSS_TOPIC_PREFIX: prefix, PSS_LOG_LEVEL: 'silent', ...(process.env.PSS_KAFKA_BROKERS ? { PSS_KAFKA_BROKERS: process.env.PSS_KAFKA_BROKERS } : {}) });
  const kafka = { brokers: config.kafkaBrokers, clientId: 'pss-bench', log };
  await migrate(databaseUrl, log);
  const admin = new KafkaAdmin(kafka);
  await admin.ensureTopics(topicSpecs(prefix));
  const pool = createPool(databaseUrl, 4, log);
  const producer = new KafkaProducer(kafka);
  const topics = topicNames(prefix);
  const codec = await createCodec(config.schemaRegistryUrl, topics);
  const ctx = { config, log, pool, kafka, topics, producer, codec, relay: { wake: () => undefined } } as ServiceContext;

  const reports: VesselStatic[] = Array.from({ length: VESSELS }, (_, v) => ({
    kind: 'static', msg_type: 5, mmsi: 240_000_000 + v, source: 'bench', reported_at: '2026-11-20T00:00:00Z', received_at: '2026-11-20T00:00:00Z',
    raw: ['!AIVDM,2,1,1,A,bench,0*00', '!AIVDM,2,2,1,A,bench,0*00'], name: `BENCH VESSEL ${v}`, callsign: `BV${v}`, imo: 9_000_000 + v, ship_type: 70, ship_category: 'cargo',
    to_bow: 100, to_stern: 20, to_port: 10, to_starboard: 10, length: 120, beam: 20, destination: 'COPENHAGEN',
  }));
  for (let i = 0; i < reports.length; i += 5_000) {
    await producer.send(reports.slice(i, i + 5_000).map((r) => ({ topic: topics.aisStatic, key: String(r.mmsi), value: codec.encode('aisStatic', r) })));
  }
  // The static sink fills the table and commits, as in service.
  const sink = await startStaticSink(ctx);
  const total = (offsets: Map<number, bigint>) => [...offsets.values()].reduce((a, b) => a + b, 0n);
  const end = total(await admin.endOffsets(topics.aisStatic));
  while (total(await admin.committedOffsets(staticSinkGroup(prefix), topics.aisStatic)) < end) await new Promise((r) => setTimeout(r, 200));
  await sink.stop();

  for (let round = 1; round <= 2; round++) {
    let t = performance.now();
    const fromTopic = new VesselDirectory();
    const role = await followVesselDirectory(ctx, fromTopic, { fromTable: false });
    const topicMs = performance.now() - t;
    await role.stop();
    t = performance.now();
    const fromTable = new VesselDirectory();
    const tableRole = await followVesselDirectory(ctx, fromTable);
    const tableMs = performance.now() - t;
    await tableRole.stop();
    console.log(`round ${round}: ${VESSELS.toLocaleString('en')} vessels: from ais.static ${topicMs.toFixed(0)} ms (${fromTopic.size} vessels), from the vessels table and the sink's offsets ${tableMs.toFixed(0)} ms (${fromTable.size} vessels)`);
  }
  await producer.close();
  await admin.deleteTopics(Object.values(topics)).catch(() => undefined);
  await admin.close();
  await pool.end();
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
