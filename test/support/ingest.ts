// Helpers of the ingest integration tests: an isolated set of topics, the ingest runtime pointing at
// them, an NMEA feed server, and a reader that collects everything a topic holds.
import net from 'node:net';
import { readFileSync, readdirSync } from 'node:fs';
import { createIngestRuntime, type IngestRuntime } from '../../ingest/runtime.ts';
import { createCodec } from '../../platform/codec/index.ts';
import type { Config } from '../../platform/config.ts';
import { KafkaProducer, type InRecord } from '../../platform/kafka/index.ts';
import { topicNames, topicSpecs, type TopicId } from '../../platform/topics.ts';
import { consumeUntil, testConfig, testKafka, testLog, unique, withAdmin } from './stack.ts';

export const AIS_FIXTURES = new URL('../fixtures/ais/', import.meta.url);

export function aisFixtureLogs(): string[] {
  return readdirSync(AIS_FIXTURES).filter((name) => name.startsWith('real-nmea-') && name.endsWith('.txt')).sort();
}

/** Every fixture log, byte for byte, joined with a line break so no two files share a line. */
export function allAisFixtures(): string {
  return aisFixtureLogs().map((name) => readFileSync(new URL(name, AIS_FIXTURES), 'latin1')).join('\n');
}

export interface IngestHarness {
  config: Config;
  topics: Record<TopicId, string>;
  producer: KafkaProducer;
  runtime: IngestRuntime;
  close(): Promise<void>;
}

/** Fresh topics (own prefix) and an ingest runtime producing to them through `brokers`. */
export async function ingestHarness(overrides: Record<string, string> = {}, brokers?: string): Promise<IngestHarness> {
  const prefix = `${unique('ingest')}.`;
  const config = testConfig({ PSS_TOPIC_PREFIX: prefix, ...overrides });
  await withAdmin((admin) => admin.ensureTopics(topicSpecs(prefix)));
  const topics = topicNames(prefix);
  const base = { ...testKafka('pss-ingest-test'), deliveryTimeoutMs: config.kafkaDeliveryTimeoutMs };
  const kafka = brokers === undefined ? base : { ...base, brokers: [brokers] };
  const producer = new KafkaProducer(kafka);
  const runtime = createIngestRuntime({ config, log: testLog, producer, topics, codec: await createCodec(config.schemaRegistryUrl, topics, config.positionFormat) });
  return {
    config,
    topics,
    producer,
    runtime,
    close: async () => {
      await producer.close();
      await withAdmin((admin) => admin.deleteTopics(topicSpecs(prefix).map((t) => t.name)));
    },
  };
}

/**
 * Reads `topic` from the start until at least `expected` records arrived and nothing more came for
 * `quietMs` (so a duplicate would be seen), or until the timeout.
 */
export function readTopic(topic: string, expected: number, { quietMs = 1_500, timeoutMs = 60_000 } = {}): Promise<InRecord[]> {
  return consumeUntil(topic, (seen) => seen.length >= expected, { quietMs, timeoutMs });
}

export interface FeedServer {
  port: number;
  /** Connections accepted. */
  readonly connections: number;
  /** Times the server had to wait because the reader stopped reading (TCP back-pressure). */
  readonly waits: number;
  close(): Promise<void>;
}

/**
 * A receiver/aggregator stand-in: sends `text` to the first client in chunks of random size (so lines
 * break across reads), `delayMs` apart, then closes. Later clients get nothing and stay connected.
 */
export async function feedServer(text: string, { chunkMax = 4096, delayMs = 0, seed = 1 } = {}): Promise<FeedServer> {
  let connections = 0;
  let waits = 0;
  let random = seed;
  const next = () => (random = (random * 48271) % 2147483647) / 2147483647;
  const sockets = new Set<net.Socket>();
  const server = net.createServer(async (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    if (connections++ > 0) return;
    const data = Buffer.from(text, 'latin1');
    for (let at = 0; at < data.length && !socket.destroyed; ) {
      const size = 1 + Math.floor(next() * chunkMax);
      if (!socket.write(data.subarray(at, at + size))) {
        waits++;
        await new Promise((r) => socket.once('drain', r));
      }
      at += size;
      if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
    }
    socket.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    get connections() {
      return connections;
    },
    get waits() {
      return waits;
    },
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Waits until `condition` holds (polling), or fails after the timeout. */
export async function until(condition: () => boolean, timeoutMs = 30_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
