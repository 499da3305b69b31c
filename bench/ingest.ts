// Ingest throughput through the real pipeline on the local broker: every real-nmea-*.txt log in the
// shared data folder (read here only), looped, served by a local TCP "aggregator" and read by the TCP
// source -> line framing -> decoder -> JSON Schema validation -> JSON -> queue batches -> Kafka, timed
// until Kafka has acknowledged the last record. Reports NMEA sentences per second, records per second
// and memory. Goal (issue 4): at least 50,000 sentences/s on the 2-core machine.
// Run: node --import tsx bench/ingest.ts [loops]       (PSS_AIS_DATA_DIR overrides the folder)
// Profile of the timed part only: PSS_BENCH_PROFILE=.cache/ingest.cpuprofile node --import tsx bench/ingest.ts
//          node --import tsx bench/support/profile-summary.ts .cache/ingest.cpuprofile
import net from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { channelFor } from '../ingest/role.ts';
import { createIngestRuntime } from '../ingest/runtime.ts';
import { TcpSource } from '../ingest/sources/tcp.ts';
import { createCodec } from '../platform/codec/index.ts';
import { loadConfig } from '../app/config.ts';
import { KafkaAdmin, KafkaProducer } from '../platform/kafka/index.ts';
import { createLogger } from '../platform/log.ts';
import { registry } from '../platform/metrics.ts';
import { topicNames, topicSpecs } from '../platform/topics.ts';
import { profilePhase } from './support/phase-profile.ts';

// The repository's own real recordings (test/fixtures/ais, with their licences); PSS_AIS_DATA_DIR names a
// larger folder of real-nmea-*.txt logs (the figures before 2026-11-26 used 23 logs, 138,866 sentences).
const DATA_DIR = process.env.PSS_AIS_DATA_DIR ?? join(import.meta.dirname, '../test/fixtures/ais');
// 60 loops of the fixtures' 8,912 sentences: about the 555,000 sentences that 4 loops of the larger corpus sent.
const LOOPS = Number(process.argv[2] ?? 60);

const files = readdirSync(DATA_DIR).filter((f) => /^real-nmea-.*\.txt$/.test(f)).sort();
if (files.length === 0) throw new Error(`no real-nmea-*.txt files in ${DATA_DIR}`);
const sample = files.map((f) => readFileSync(join(DATA_DIR, f), 'latin1')).join('\n') + '\n';
const sentencesPerLoop = sample.split(/\r\n|\r|\n/).filter((l) => /![A-Z=-]{2}VD[MO],/.test(l)).length;
const payload = Buffer.from(sample, 'latin1');

const prefix = `bench-${Date.now().toString(36)}.`;
const config = loadConfig({ ...process.env, PSS_TOPIC_PREFIX: prefix, PSS_LOG_LEVEL: 'warn' });
const log = createLogger(config.logLevel);
const kafka = { brokers: config.kafkaBrokers, clientId: 'pss-bench-ingest', log };
const admin = new KafkaAdmin(kafka);
await admin.ensureTopics(topicSpecs(prefix));
const producer = new KafkaProducer(kafka);
const topics = topicNames(prefix);
const rt = createIngestRuntime({ config, log, producer, topics, codec: await createCodec(config.schemaRegistryUrl, topics, config.positionFormat) });

/** The aggregator: sends the sample LOOPS times as fast as the reader takes it, then closes. */
let sendingDone = false;
const server = net.createServer(async (socket) => {
  if (sendingDone) return;
  for (let i = 0; i < LOOPS; i++) {
    if (!socket.write(payload)) await new Promise((r) => socket.once('drain', r));
  }
  sendingDone = true;
  socket.end();
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = (server.address() as net.AddressInfo).port;

let maxRss = 0;
let maxHeap = 0;
const sampler = setInterval(() => {
  const m = process.memoryUsage();
  maxRss = Math.max(maxRss, m.rss);
  maxHeap = Math.max(maxHeap, m.heapUsed);
}, 50);

const channel = channelFor(rt, 'bench', 'tcp');
const source = new TcpSource({ endpoint: { name: 'bench', host: '127.0.0.1', port }, channel, backoff: { minMs: 1000, maxMs: 1000 }, idleTimeoutMs: 0, log });
const profiled = await profilePhase();
const started = performance.now();
source.start();
await new Promise<void>((resolve) => {
  const check = setInterval(() => {
    if (sendingDone && !source.connected) {
      clearInterval(check);
      resolve();
    }
  }, 5);
});
await source.stop();
await rt.queue.flush();
const seconds = (performance.now() - started) / 1000;
clearInterval(sampler);
await profiled();

const metrics = await registry.getMetricsAsJSON();
const valuesOf = (name: string) => metrics.find((m) => m.name === name)?.values ?? [];
const produced = valuesOf('pss_ingest_records_total').map((v) => [String(v.labels.topic).slice(prefix.length), v.value] as const);
const records = produced.reduce((n, [, v]) => n + v, 0);
const sentences = sentencesPerLoop * LOOPS;

console.log(`ingest: ${files.length} real logs, ${sentencesPerLoop.toLocaleString('en')} VDM/VDO sentences per loop, ${LOOPS} loops, through TCP -> decode -> validate -> Kafka (acks=all)`);
console.log(`  ${seconds.toFixed(2)} s: ${Math.round(sentences / seconds).toLocaleString('en')} sentences/s, ${Math.round(records / seconds).toLocaleString('en')} records/s acknowledged, ${(payload.length * LOOPS / seconds / 1e6).toFixed(1)} MB/s of NMEA`);
console.log(`  records by topic: ${produced.map(([t, v]) => `${t} ${v.toLocaleString('en')}`).join(', ')}`);
console.log(`  batch size ${config.ingestBatchRecords}, linger ${config.ingestLingerMs} ms, in flight ${config.ingestMaxInFlight}, max queued ${config.ingestMaxQueuedRecords}; peak RSS ${(maxRss / 1e6).toFixed(0)} MB, peak heap ${(maxHeap / 1e6).toFixed(0)} MB`);
console.log(`  goal 50,000 sentences/s: ${sentences / seconds >= 50_000 ? 'met' : 'NOT met'}`);

channel.destroy();
server.close();
await producer.close();
await admin.deleteTopics(topicSpecs(prefix).map((t) => t.name));
await admin.close();
