// Vessel directory start-up (issue 13, item 2): the zone processor's directory reads the whole compacted
// ais.static topic at every start; the vessels table now holds the same data. This measures both ways of
// filling a directory of VESSELS vessels, to decide whether to switch (README vessel decision 8).
// Run: npm run bench vessel-directory   (PSS_BENCH_VESSELS, default 100,000)
import { loadConfig } from '../app/config.ts';
import { createCodec } from '../platform/codec/index.ts';
import type { ServiceContext } from '../platform/context.ts';
import { KafkaAdmin, KafkaProducer } from '../platform/kafka.ts';
import { createLogger } from '../platform/log.ts';
import { createPool, migrate } from '../platform/postgres.ts';
import { topicNames, topicSpecs } from '../platform/topics.ts';
import { VesselDirectory, followVesselDirectory } from '../processors/maritime/vessel-directory.ts';
import { staticRows } from '../processors/vessels/static-rows.ts';
import { upsertStatic } from '../processors/vessels/vessel-store.ts';
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
  for (let i = 0; i < reports.length; i += 5_000) await upsertStatic(pool, staticRows(reports.slice(i, i + 5_000)));

  for (let round = 1; round <= 2; round++) {
    let t = performance.now();
    const fromTopic = new VesselDirectory();
    const role = await followVesselDirectory(ctx, fromTopic);
    const topicMs = performance.now() - t;
    await role.stop();
    t = performance.now();
    const fromTable = new VesselDirectory();
    const { rows } = await pool.query<{ mmsi: number; name: string | null; category: string | null }>('SELECT mmsi, name, category AS ship_category FROM vessels');
    for (const row of rows) fromTable.apply({ mmsi: row.mmsi, name: row.name ?? undefined, ship_category: (row as { ship_category?: VesselStatic['ship_category'] }).ship_category ?? undefined });
    const tableMs = performance.now() - t;
    console.log(`round ${round}: ${VESSELS.toLocaleString('en')} vessels: from ais.static ${topicMs.toFixed(0)} ms (${fromTopic.size} vessels), from the vessels table ${tableMs.toFixed(0)} ms (${fromTable.size} vessels)`);
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
