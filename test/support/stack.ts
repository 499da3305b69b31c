// What integration tests use to reach the stack that test/support/global-setup.ts brought up.
import { inject } from 'vitest';
import { loadConfig } from '../../app/config.ts';
import type { Config } from '../../platform/config.ts';
import { KafkaAdmin, KafkaConsumer, type InRecord, type KafkaOptions } from '../../platform/kafka/index.ts';
import { createLogger, type Logger } from '../../platform/log.ts';
import { topicNames } from '../../platform/topics.ts';

export const testLog: Logger = createLogger(process.env.PSS_TEST_LOG_LEVEL ?? 'silent');

/** The service configuration pointing at the test stack, with per-test overrides. */
export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({
    PSS_KAFKA_BROKERS: inject('kafkaBrokers'),
    PSS_DATABASE_URL: inject('databaseUrl'),
    PSS_TOPIC_PREFIX: inject('topicPrefix'),
    PSS_HTTP_PORT: '0',
    PSS_LOG_LEVEL: 'silent',
    PSS_ENVIRONMENT: 'test',
    // The health reporter writes to the database every test file shares; the tests of the health model
    // turn it on in a scratch database of their own (test/e2e/system-health.test.ts).
    PSS_HEALTH_REPORT_INTERVAL_MS: '0',
    ...overrides,
  });
}

export function testKafka(clientId = 'pss-test'): KafkaOptions {
  return { brokers: inject('kafkaBrokers').split(','), clientId, log: testLog };
}

export function testTopics(prefix = inject('topicPrefix')) {
  return topicNames(prefix);
}

/** A unique name for per-test topics and groups. */
export function unique(name: string): string {
  return `${inject('topicPrefix')}${name}-${Math.random().toString(36).slice(2, 8)}`;
}

export interface ReadOptions {
  /** Give up after this long and return what was seen, so the test's own assertion reports the difference. */
  timeoutMs?: number;
  /** Once `until` holds, keep reading until nothing more came for this long (so a duplicate would be seen). */
  quietMs?: number;
  /** Defaults to a fresh group reading from the start. */
  groupId?: string;
  /** False: commit nothing, as readers that rebuild state from the whole topic do. */
  commitOffsets?: boolean;
  /** Another cluster than the test stack's (the three-broker cluster of the failover test). */
  kafka?: KafkaOptions;
}

/** Reads `topic` until `until` says enough (and the topic has been quiet for `quietMs`), or the timeout. */
export async function consumeUntil(topic: string, until: (seen: InRecord[]) => boolean, { timeoutMs = 30_000, quietMs = 0, groupId = unique('reader'), commitOffsets = true, kafka = testKafka() }: ReadOptions = {}): Promise<InRecord[]> {
  const seen: InRecord[] = [];
  const consumer = new KafkaConsumer(kafka, { groupId, topics: [topic], startAt: 'earliest', maxBatch: 5_000, commitOffsets });
  let lastArrival = Date.now();
  await consumer.run(async (records) => {
    seen.push(...records);
    lastArrival = Date.now();
  });
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !(until(seen) && Date.now() - lastArrival >= quietMs)) {
    await new Promise((r) => setTimeout(r, 50));
  }
  await consumer.stop();
  return seen;
}

export async function withAdmin<T>(fn: (admin: KafkaAdmin) => Promise<T>): Promise<T> {
  const admin = new KafkaAdmin(testKafka());
  try {
    return await fn(admin);
  } finally {
    await admin.close();
  }
}
