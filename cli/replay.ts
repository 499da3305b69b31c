// `pss replay FILE [--speed N | --fast] [--rate N/s] [--source NAME]`: feeds a recorded NMEA log through
// the same pipeline as a live source (decode, validate, key, produce, dead-letter), then waits for Kafka to
// acknowledge everything and prints a summary. A recording without per-line times is stamped with the
// time each line is decoded, unless `--rate` gives a synthetic clock of N lines per second of event time
// (the one `pss demo` uses); either way stderr says that the recording has no times.
import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { channelFor } from '../ingest/role.ts';
import { createIngestRuntime } from '../ingest/runtime.ts';
import { replayFile } from '../ingest/sources/file.ts';
import { createCodec } from '../platform/codec/index.ts';
import { loadConfig } from '../app/config.ts';
import { hasRecordedTimes, parseRate, SyntheticClock, TIME_PROBE_LINES } from '../ingest/sources/replay-timing.ts';
import { KafkaAdmin, KafkaProducer } from '../platform/kafka/index.ts';
import { createLogger } from '../platform/log.ts';
import { topicNames, topicSpecs } from '../platform/topics.ts';
import { usageLine } from './usage.ts';

const USAGE = `${usageLine('replay')}   (pss replay --help for the options)`;

export async function replayCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { speed: { type: 'string' }, fast: { type: 'boolean' }, rate: { type: 'string' }, source: { type: 'string' } } });
  const file = positionals[0];
  const speed = values.speed === undefined ? undefined : Number(values.speed);
  const rate = values.rate === undefined ? undefined : parseRate(values.rate);
  if (file === undefined || positionals.length > 1 || (speed !== undefined && !(speed > 0)) || (speed !== undefined && values.fast) || (values.rate !== undefined && rate === undefined)) {
    console.error(USAGE);
    return 2;
  }
  const timed = await recordingHasTimes(file);
  const clock = rate === undefined ? undefined : new SyntheticClock(Date.now(), rate);
  if (!timed) console.error(timelessNotice(file, clock, speed));
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  const kafka = { brokers: config.kafkaBrokers, clientId: config.kafkaClientId, log, deliveryTimeoutMs: config.kafkaDeliveryTimeoutMs };
  const admin = new KafkaAdmin(kafka);
  try {
    await admin.ensureTopics(topicSpecs(config.topicPrefix));
  } finally {
    await admin.close();
  }
  const producer = new KafkaProducer(kafka);
  try {
    const topics = topicNames(config.topicPrefix);
    const rt = createIngestRuntime({ config, log, producer, topics, codec: await createCodec(config.schemaRegistryUrl, topics, config.positionFormat) });
    const source = values.source ?? `replay:${basename(file)}`;
    const started = performance.now();
    const channel = channelFor(rt, source, 'replay', clock === undefined ? undefined : () => clock.next());
    // `at` is pure, so the pacing can read the clock that stamps the lines.
    const paceBy = !timed && clock !== undefined ? { paceBy: clock } : {};
    await replayFile(file, channel, speed === undefined ? {} : { speed, ...paceBy });
    await rt.queue.flush();
    const seconds = (performance.now() - started) / 1000;
    console.log(`pss replay: ${file} as source "${source}" done in ${seconds.toFixed(1)} s; every record acknowledged by Kafka`);
    return 0;
  } finally {
    await producer.close();
  }
}

/** Whether the first lines of the recording carry times (see hasRecordedTimes). */
async function recordingHasTimes(file: string): Promise<boolean> {
  const lines = createInterface({ input: createReadStream(file, { encoding: 'latin1' }), crlfDelay: Infinity });
  try {
    return hasRecordedTimes(await firstLines(lines, TIME_PROBE_LINES));
  } finally {
    lines.close();
  }
}

async function firstLines(lines: AsyncIterable<string>, count: number): Promise<string[]> {
  const out: string[] = [];
  for await (const line of lines) {
    if (line.trim() !== '') out.push(line);
    if (out.length >= count) break;
  }
  return out;
}

function timelessNotice(file: string, clock: SyntheticClock | undefined, speed: number | undefined): string {
  const why = `pss replay: ${file} has no per-line times (no NMEA 4.0 tag block c: field and no $PGHP sentence in its first ${TIME_PROBE_LINES} lines)`;
  if (clock !== undefined) {
    return `${why}: its lines are stamped ${clock.linesPerSecond} per second of event time (--rate), from ${new Date(clock.originMs).toISOString()}${speed === undefined ? '' : `, and fed at ${speed}x that rate`}.`;
  }
  return (
    `${why}: every report is stamped with the moment it is decoded, so a fast replay puts the whole recording ` +
    `into a few milliseconds (no dwell, no confirmed exits, reports of the same millisecond dropped as not newer)` +
    `${speed === undefined ? '' : ', and --speed has nothing to pace by'}. Give --rate N/s to stamp the lines N per second of event time.`
  );
}
