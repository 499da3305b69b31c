// `pss replay FILE [--speed N | --fast] [--source NAME]`: feeds a recorded NMEA log through the same
// pipeline as a live source (decode, validate, key, produce, dead-letter), then waits for Kafka to
// acknowledge everything and prints a summary.
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { channelFor } from '../ingest/role.ts';
import { createIngestRuntime } from '../ingest/runtime.ts';
import { replayFile } from '../ingest/sources/file.ts';
import { createCodec } from '../platform/codec/index.ts';
import { loadConfig } from '../app/config.ts';
import { KafkaAdmin, KafkaProducer } from '../platform/kafka.ts';
import { createLogger } from '../platform/log.ts';
import { topicNames, topicSpecs } from '../platform/topics.ts';

export async function replayCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { speed: { type: 'string' }, fast: { type: 'boolean' }, source: { type: 'string' } } });
  const file = positionals[0];
  const speed = values.speed === undefined ? undefined : Number(values.speed);
  if (file === undefined || positionals.length > 1 || (speed !== undefined && !(speed > 0)) || (speed !== undefined && values.fast)) {
    console.error('usage: pss replay FILE [--speed N | --fast] [--source NAME]   (N > 0; 1 = recorded speed)');
    return 2;
  }
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  const kafka = { brokers: config.kafkaBrokers, clientId: config.kafkaClientId, log };
  const admin = new KafkaAdmin(kafka);
  try {
    await admin.ensureTopics(topicSpecs(config.topicPrefix));
  } finally {
    await admin.close();
  }
  const producer = new KafkaProducer(kafka);
  try {
    const topics = topicNames(config.topicPrefix);
    const rt = createIngestRuntime({ config, log, producer, topics, codec: await createCodec(config.schemaRegistryUrl, topics) });
    const source = values.source ?? `replay:${basename(file)}`;
    const started = performance.now();
    await replayFile(file, channelFor(rt, source, 'replay'), speed === undefined ? {} : { speed });
    await rt.queue.flush();
    const seconds = (performance.now() - started) / 1000;
    console.log(`pss replay: ${file} as source "${source}" done in ${seconds.toFixed(1)} s; every record acknowledged by Kafka`);
    return 0;
  } finally {
    await producer.close();
  }
}
