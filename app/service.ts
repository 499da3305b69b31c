// Assembles the service from its roles. Used by `pss start`, the demo and the end-to-end tests alike.
import { createApp } from './http/express-app.ts';
import { healthSources, startHealthReporter } from './health.ts';
import { v1Router } from '../api/http/routes.ts';
import type { Feature } from './feature.ts';
import { EventRelay } from '../events/relay.ts';
import { apiRoutes } from './v1-routes.ts';
import { listen } from './http/server.ts';
import { createCodec } from '../platform/codec/index.ts';
import type { Config, Role } from '../platform/config.ts';
import type { RelaySignal, RunningRole, ServiceContext } from '../platform/context.ts';
import { ConsumerLagSampler, KafkaAdmin, KafkaProducer } from '../platform/kafka/index.ts';
import type { Logger } from '../platform/log.ts';
import { withDeadline } from '../platform/deadline.ts';
import { createPool, migrate } from '../platform/postgres.ts';
import { consumersCheck, kafkaCheck, postgresCheck, type ReadinessCheck, topicsCheck } from '../platform/readiness.ts';
import { ensureAndVerifyTopics } from '../platform/topic-verify.ts';
import { topicNames, topicSpecs } from '../platform/topics.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { PendingStops, stopInTurn } from '../platform/shutdown.ts';

export interface RunningService {
  context: ServiceContext;
  /** Base URL of the HTTP server when the api role runs. */
  url?: string;
  /**
   * Stops every role; what is still undelivered at `deadline` (default: the shutdown timeout less a second)
   * is given up and logged. Resolves with what had not stopped by the deadline (logged too; empty: a clean stop).
   */
  stop(deadline?: number): Promise<string[]>;
  /** While stopping: what the shutdown is still waiting for, by name and how long (for the last log line of a timed-out shutdown). */
  pending(): string[];
}

/** Time left after the deadline, within PSS_SHUTDOWN_TIMEOUT_MS, to close the producer and log before the process exits. */
const SHUTDOWN_MARGIN_MS = 1_000;

export async function startService(config: Config, roles: Role[], log: Logger, features: Feature[]): Promise<RunningService> {
  const kafka = { brokers: config.kafkaBrokers, clientId: config.kafkaClientId, log, deliveryTimeoutMs: config.kafkaDeliveryTimeoutMs };
  await untilReady('postgres', log, () => migrate(config.databaseUrl, log));
  for (const feature of features) await feature.setup?.(config);
  const declaredTopics = await untilReady('kafka', log, async () => {
    const admin = new KafkaAdmin(kafka);
    try {
      const replication = { replicationFactor: config.kafkaReplicationFactor, minInsyncReplicas: config.kafkaMinInsyncReplicas };
      return await ensureAndVerifyTopics(admin, topicSpecs(config.topicPrefix, config.topicPartitions), replication, log);
    } finally {
      await admin.close();
    }
  });

  const topics = topicNames(config.topicPrefix);
  const codec = await untilReady('schema registry', log, () => createCodec(config.schemaRegistryUrl, topics, config.positionFormat));

  const pool = createPool(config.databaseUrl, config.databasePoolSize, log, { connectMs: config.databaseConnectTimeoutMs, statementMs: config.databaseStatementTimeoutMs });
  const producer = new KafkaProducer(kafka);
  // The roles that store events (the processors' findings, the API's intake) publish them through this
  // instance's relay; an ingest-only instance stores none, and runs none.
  const relay = roles.includes('processors') || roles.includes('api') ? new EventRelay({ pool, producer, codec, topic: topics.securityEvents, log }) : undefined;
  const context: ServiceContext = { config, log, pool, kafka, topics, producer, codec, relay: relay ?? NO_RELAY };
  const running: RunningRole[] = [];
  let url: string | undefined;

  try {
    if (relay) {
      relay.start();
      // Started first, so stopped last: it publishes what the other roles stored while they stopped.
      running.push({ name: 'event-relay', stop: (deadline) => relay.stop(deadline) });
    }
    // Watches the groups the roles below start (here and in their workers): the lag in /metrics and each group's lag status.
    const lag = new ConsumerLagSampler(kafka, { intervalMs: config.consumerLagSampleMs });
    lag.start();
    running.push({ name: 'consumer-lag', stop: () => lag.stop() });
    for (const role of ['processors', 'ingest'] as const) {
      if (!roles.includes(role)) continue;
      for (const feature of features) {
        const start = feature[role];
        if (start) running.push(await start(context));
      }
    }
    // One set of checks: /readyz runs them on request, the health reporter on its schedule (docs/operations.md).
    const readiness: Record<string, ReadinessCheck> = {
      postgres: postgresCheck(pool),
      kafka: kafkaCheck(kafka),
      kafka_topics: topicsCheck(kafka, declaredTopics),
      consumers: consumersCheck(kafka),
      ...(relay ? { event_relay: () => relay.check() } : {}),
      ...Object.assign({}, ...features.map((f) => f.readiness?.(context) ?? {})),
    };
    // Started after the roles, so stopped before them: a stopping instance takes its report back first.
    running.push(startHealthReporter(context, roles, healthSources(context, readiness, features)));
    if (roles.includes('api')) {
      const app = createApp({
        log,
        readiness,
        routers: [v1Router(context, apiRoutes(features, config)), ...features.flatMap((f) => f.routers?.(context) ?? [])],
      });
      const http = await listen(app, config.httpHost, config.httpPort, features.flatMap((f) => f.upgrades?.(context) ?? []), config.httpBodyTimeoutMs);
      url = http.url;
      running.push({ name: 'http', stop: () => http.close() });
      for (const feature of features) {
        if (feature.api) running.push(await feature.api(context));
      }
      log.info({ url, roles }, 'service started');
    } else {
      // Without the api role an instance still answers /healthz, /readyz and /metrics on PSS_HTTP_PORT: the
      // probes of an orchestrator and Prometheus reach every instance (infra/k8s, infra/cluster).
      const http = await listen(createApp({ log, readiness }), config.httpHost, config.httpPort, [], config.httpBodyTimeoutMs);
      running.push({ name: 'http', stop: () => http.close() });
      log.info({ roles, health_url: http.url }, 'service started (no api role)');
    }
  } catch (err) {
    await stopInTurn(running, log, Date.now() + Math.max(0, config.shutdownTimeoutMs - SHUTDOWN_MARGIN_MS));
    await producer.close().catch(() => undefined);
    await pool.end().catch(() => undefined);
    throw err;
  }

  const pending = new PendingStops();
  return {
    context,
    url,
    pending: () => pending.names(),
    stop: async (deadline = Date.now() + Math.max(0, config.shutdownTimeoutMs - SHUTDOWN_MARGIN_MS)) => {
      const still = await stopInTurn(running, log, deadline, pending);
      for (const feature of features) {
        await pending.track(`${feature.name} shutdown`, async () => feature.shutdown?.(context, deadline)).catch((err: unknown) => log.warn({ err, feature: feature.name }, 'feature did not shut down cleanly'));
      }
      // A send to an unreachable broker can outlast the shutdown; what it held was given up (and logged) above.
      await pending.track('kafka producer', () => withDeadline(producer.close(), Math.max(0, deadline + SHUTDOWN_MARGIN_MS / 2 - Date.now()))).catch((err) => log.warn({ err }, 'producer close failed'));
      await pending.track('postgres pool', () => pool.end()).catch((err) => log.warn({ err }, 'pool close failed'));
      return still;
    },
  };
}

const NO_RELAY: RelaySignal = { wake: () => undefined };

/** Start-up waits for a dependency (with a log line saying what it waits for) instead of crashing. */
async function untilReady<T>(name: string, log: Logger, attempt: () => Promise<T>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; ; i++) {
    try {
      return await attempt();
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`${name} is not reachable: ${(err as Error).message}`, { cause: err });
      if (i % 5 === 0) log.warn({ err: (err as Error).message }, `waiting for ${name}`);
      await sleep(1_000);
    }
  }
}
