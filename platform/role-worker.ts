// A role's worker thread (started by platform/role-workers.ts): its own Kafka clients, Postgres pool and
// codec, the role started on them, events announced to the main thread's relay, its log lines written by
// the main thread, and its metrics and stuck consumers reported regularly so /metrics and /readyz show them.
import { parentPort, workerData } from 'node:worker_threads';
import { createCodec } from './codec/index.ts';
import type { ServiceContext } from './context.ts';
import { KafkaProducer, consumerGroups, stuckConsumers } from './kafka/index.ts';
import { createLogger } from './log.ts';
import { workerSnapshot } from './metrics.ts';
import { createPool } from './postgres.ts';
import type { FromWorker, RoleWorkerData, ToWorker } from './role-worker-protocol.ts';
import { topicNames } from './topics.ts';

/** A member of a consumer group needs a transaction's connection, a look-up's and its readers': not the instance's whole pool. */
const WORKER_POOL_SIZE = 4;

const port = parentPort;
if (port === null) throw new Error('role-worker.ts runs in a worker thread (platform/role-workers.ts)');
const { config, worker, logLevel, module, start, reportEveryMs } = workerData as RoleWorkerData;
const send = (message: FromWorker) => port.postMessage(message);

// Lines go to the main thread, which writes them where its own go (one destination per instance).
const log = createLogger(logLevel, { write: (line: string) => send({ type: 'log', line }) }).child({ worker });
const kafka = { brokers: config.kafkaBrokers, clientId: `${config.kafkaClientId}-${worker}`, log, deliveryTimeoutMs: config.kafkaDeliveryTimeoutMs };
const pool = createPool(config.databaseUrl, Math.min(WORKER_POOL_SIZE, config.databasePoolSize), log, { connectMs: config.databaseConnectTimeoutMs, statementMs: config.databaseStatementTimeoutMs });
const producer = new KafkaProducer(kafka);
const topics = topicNames(config.topicPrefix);
const report = async () => send({ type: 'report', metrics: await workerSnapshot(), stuck: stuckConsumers(kafka), groups: [...consumerGroups(kafka)] });

try {
  const codec = await createCodec(config.schemaRegistryUrl, topics, config.positionFormat);
  const ctx: ServiceContext = { config, log, pool, kafka, topics, producer, codec, relay: { wake: () => send({ type: 'wake' }) } };
  const role = await ((await import(module)) as Record<string, (ctx: ServiceContext) => Promise<{ stop(deadline?: number): Promise<void> }>>)[start]!(ctx);
  const timer = setInterval(() => void report().catch((err: unknown) => log.warn({ err }, 'worker report failed')), reportEveryMs);
  port.on('message', (message: ToWorker) => {
    if (message.type !== 'stop') return;
    clearInterval(timer);
    void (async () => {
      await role.stop(message.deadline).catch((err: unknown) => log.warn({ err }, 'role did not stop cleanly'));
      await report().catch(() => undefined);
      await closeClients();
      port.close();
    })();
  });
  send({ type: 'started' });
} catch (err) {
  log.error({ err }, 'role worker could not start');
  await closeClients();
  send({ type: 'failed', message: (err as Error).message });
  port.close();
}

async function closeClients(): Promise<void> {
  await producer.close().catch(() => undefined);
  await pool.end().catch(() => undefined);
}
