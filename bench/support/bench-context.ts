// The service context a processor benchmark runs one processor in: a fresh migrated database, the topics
// under a fresh prefix, one producer, the codec and an event relay (started when the processor stores
// events, as in the service). `close()` takes it all down again.
import { loadConfig } from '../../app/config.ts';
import { EventRelay } from '../../events/relay.ts';
import { createCodec } from '../../platform/codec/index.ts';
import type { ServiceContext } from '../../platform/context.ts';
import { KafkaAdmin, KafkaProducer } from '../../platform/kafka/index.ts';
import type { Logger } from '../../platform/log.ts';
import { createPool, migrate } from '../../platform/postgres.ts';
import { topicNames, topicSpecs } from '../../platform/topics.ts';
import { freshBenchDatabase } from './bench-database.ts';

export interface BenchContext {
  ctx: ServiceContext;
  relay: EventRelay;
  admin: KafkaAdmin;
  close(): Promise<void>;
}

export async function benchContext(opts: { database: string; prefix: string; log: Logger; settings?: Record<string, string>; startRelay?: boolean }): Promise<BenchContext> {
  const databaseUrl = await freshBenchDatabase(opts.database);
  const { log, prefix } = opts;
  const brokers = process.env.PSS_KAFKA_BROKERS ?? '127.0.0.1:9092';
  const config = loadConfig({ PSS_POSITION_FORMAT: process.env.PSS_POSITION_FORMAT, ...opts.settings, PSS_DATABASE_URL: databaseUrl, PSS_KAFKA_BROKERS: brokers, PSS_TOPIC_PREFIX: prefix, PSS_LOG_LEVEL: 'silent' });
  const kafka = { brokers: config.kafkaBrokers, clientId: 'pss-bench', log };
  await migrate(databaseUrl, log);
  const admin = new KafkaAdmin(kafka);
  await admin.ensureTopics(topicSpecs(prefix));
  // As many connections as an instance has (PSS_DATABASE_POOL_SIZE): the roles run here share them as there.
  const pool = createPool(databaseUrl, config.databasePoolSize, log);
  const producer = new KafkaProducer(kafka);
  const topics = topicNames(prefix);
  const codec = await createCodec(config.schemaRegistryUrl, topics, config.positionFormat);
  const relay = new EventRelay({ pool, producer, codec, topic: topics.securityEvents, log });
  if (opts.startRelay) relay.start();
  const ctx: ServiceContext = { config, log, pool, kafka, topics, producer, codec, relay };
  return {
    ctx,
    relay,
    admin,
    close: async () => {
      await relay.stop();
      await producer.close();
      await admin.deleteTopics(Object.values(topics)).catch(() => undefined);
      await admin.close();
      await pool.end();
    },
  };
}
