// Brings up the real stack for integration and end-to-end tests, in this order of preference:
//   1. PSS_KAFKA_BROKERS and PSS_DATABASE_URL set: use those services as they are;
//   2. a reachable Docker engine: Kafka and PostGIS in testcontainers (same versions as infra/);
//   3. otherwise: the native stack from infra/ (Kafka from Maven Central jars, PostGIS from Debian).
// Each run gets a fresh database and its own topic prefix, so runs never see each other's data.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { TestProject } from 'vitest/node';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NATIVE_DB = 'postgres://postgres@127.0.0.1:5432';

declare module 'vitest' {
  export interface ProvidedContext {
    kafkaBrokers: string;
    databaseUrl: string;
    topicPrefix: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let teardown = async () => {};
  let brokers = process.env.PSS_KAFKA_BROKERS;
  let adminUrl = process.env.PSS_DATABASE_URL;

  if (!brokers || !adminUrl) {
    if (dockerReachable()) {
      const started = await startContainers();
      brokers = started.brokers;
      adminUrl = started.databaseUrl;
      teardown = started.stop;
    } else {
      runNative();
      brokers = '127.0.0.1:9092';
      adminUrl = `${NATIVE_DB}/postgres`;
    }
  }

  // Its own database per run, so concurrent runs on one machine never drop each other's.
  const databaseName = `pss_test_${Date.now().toString(36)}_${process.pid}`;
  const databaseUrl = await freshDatabase(adminUrl, databaseName);
  const stopStack = teardown;
  teardown = async () => {
    await dropDatabase(adminUrl, databaseName);
    await stopStack();
  };
  project.provide('kafkaBrokers', brokers);
  project.provide('databaseUrl', databaseUrl);
  project.provide('topicPrefix', `test-${Date.now().toString(36)}-`);
  return teardown;
}

function dockerReachable(): boolean {
  try {
    execFileSync('docker', ['info'], { stdio: 'ignore', timeout: 5_000 });
    return true;
  } catch {
    return false;
  }
}

function runNative(): void {
  const script = `${ROOT}/infra/stack.sh`;
  if (!existsSync(script)) throw new Error(`Integration tests need Kafka and PostGIS: ${script} is missing`);
  try {
    execFileSync('bash', [script, 'up'], { stdio: 'inherit', timeout: 600_000 });
  } catch (err) {
    throw new Error(
      'Integration tests need a Kafka broker and PostgreSQL with PostGIS. Starting the native stack failed; ' +
        'start it with `bash infra/stack.sh up` (see its output), or set PSS_KAFKA_BROKERS and PSS_DATABASE_URL.',
      { cause: err },
    );
  }
}

async function startContainers(): Promise<{ brokers: string; databaseUrl: string; stop: () => Promise<void> }> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const postgis = await new GenericContainer('postgis/postgis:15-3.4')
    .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: 'trust' })
    .withExposedPorts(5432)
    .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
    .start();
  const kafka = await new GenericContainer('apache/kafka:3.9.2')
    .withExposedPorts({ container: 9092, host: 19092 })
    .withEnvironment({
      KAFKA_NODE_ID: '1',
      KAFKA_PROCESS_ROLES: 'broker,controller',
      KAFKA_LISTENERS: 'PLAINTEXT://:9092,CONTROLLER://:9093',
      KAFKA_ADVERTISED_LISTENERS: 'PLAINTEXT://127.0.0.1:19092',
      KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
      KAFKA_CONTROLLER_QUORUM_VOTERS: '1@localhost:9093',
      KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '1',
      KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
      KAFKA_AUTO_CREATE_TOPICS_ENABLE: 'false',
    })
    .withWaitStrategy(Wait.forLogMessage(/Kafka Server started/))
    .start();
  return {
    brokers: '127.0.0.1:19092',
    databaseUrl: `postgres://postgres@${postgis.getHost()}:${postgis.getMappedPort(5432)}/postgres`,
    stop: async () => {
      await kafka.stop();
      await postgis.stop();
    },
  };
}

async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

/** Drops and recreates the test database with PostGIS; migrations run in the tests that need them. */
async function freshDatabase(adminUrl: string, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = new pg.Client({ connectionString: url.toString() });
  await db.connect();
  try {
    await db.query('CREATE EXTENSION IF NOT EXISTS postgis');
  } finally {
    await db.end();
  }
  return url.toString();
}
