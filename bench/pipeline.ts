// End-to-end benchmark (issue 22 items 4 and 5): real NMEA sentences written at a steady rate to a TCP
// feed the service's ingest role reads, through ingest -> ais.positions -> the zone processor (1,000 zones,
// the realistic rule set) -> the event stored in Postgres -> the relay -> security.events -> a WebSocket
// stream client and a webhook receiver. The service runs as `pss start --roles ...` child processes, in
// two layouts: every role in one process (`all`), and the processors in one process with api + ingest in
// another (`split`; `roles` runs each role alone). For each layout: 1,000 and 10,000 positions/s, then a
// search for the highest steady rate whose p99 to the WebSocket client stays under 250 ms.
// Each stage is timed from the moment the sentence was written to the socket (pipeline-stages.ts).
// Run: npm run bench pipeline. Knobs: PSS_BENCH_SECONDS (20 per step), PSS_BENCH_RATES (1000,10000),
// PSS_BENCH_SEARCH_STEPS (5), PSS_BENCH_LAYOUTS (all,split), PSS_BENCH_VESSELS (10000),
// PSS_BENCH_P99_GOAL_MS (250), PSS_BENCH_WARMUP_SECONDS (30, at 2,000/s), PSS_BENCH_SERVICE_NODE_ARGS (e.g.
// --cpu-prof, for every service process).
import { loadavg } from 'node:os';
import pg from 'pg';
import { createApiKey } from '../api/auth/api-keys.ts';
import { loadConfig } from '../app/config.ts';
import { replaceAllRules } from '../processors/maritime/rules-config/rule-store.ts';
import { createCodec } from '../platform/codec/index.ts';
import { KafkaAdmin } from '../platform/kafka/index.ts';
import { createLogger } from '../platform/log.ts';
import { createPool, migrate } from '../platform/postgres.ts';
import { topicNames, topicSpecs } from '../platform/topics.ts';
import { startAisFeed, type AisFeed } from './support/ais-feed.ts';
import { FIRST_MMSI, LiveFleet, positionSentence, staticSentences } from './support/ais-traffic.ts';
import { BENCH_ADMIN_URL, freshBenchDatabase } from './support/bench-database.ts';
import { startObservers } from './support/pipeline-observers.ts';
import { STAGES, StepSamples, TRACED_TYPES, type StageFigures } from './support/pipeline-stages.ts';
import { storePortZones } from './support/port-zones.ts';
import { RandomPort, TRAFFIC_AREA } from './support/random-port.ts';
import { realisticRules, realisticRulesSummary } from './support/realistic-rules.ts';
import { commandCpuBetween, commandCpuSeconds, machineCpuSeconds, startServiceProcess, type ServiceProcess } from './support/service-process.ts';
import type { SignatureTally } from './support/signed-receiver.ts';

const ZONES = 1_000;
const VESSELS = Number(process.env.PSS_BENCH_VESSELS ?? 10_000);
const SECONDS = Number(process.env.PSS_BENCH_SECONDS ?? 20);
const RATES = (process.env.PSS_BENCH_RATES ?? '1000,10000').split(',').map(Number);
const SEARCH_STEPS = Number(process.env.PSS_BENCH_SEARCH_STEPS ?? 5);
const GOAL_MS = Number(process.env.PSS_BENCH_P99_GOAL_MS ?? 250);
const DRAIN_TIMEOUT_MS = Number(process.env.PSS_BENCH_DRAIN_TIMEOUT_MS ?? 180_000);
/**
 * Before the first step: every vessel reports several times, so the burst of first sightings (each vessel
 * found inside a zone or buffer) and the exits that confirm only after 60 s are behind the timed steps.
 */
const WARMUP = { rate: 2_000, seconds: Number(process.env.PSS_BENCH_WARMUP_SECONDS ?? 30) };
/** The service processes of each layout, by their --roles. */
const LAYOUTS: Record<string, string[]> = { all: ['ingest,processors,api'], split: ['processors', 'api,ingest'], roles: ['processors', 'ingest', 'api'] };
const SELECTED = (process.env.PSS_BENCH_LAYOUTS ?? 'all,split').split(',');
const DATABASE = 'pss_bench_pipeline';
/** The stack's processes, by command name: Kafka runs in `java`. */
const STACK = ['java', 'postgres'];
const SECRET = 'whsec_bench_pipeline_0123456789';
const log = createLogger(process.env.PSS_BENCH_LOG_LEVEL ?? 'silent');
const brokers = process.env.PSS_KAFKA_BROKERS ?? '127.0.0.1:9092';

interface StepReport {
  layout: string;
  rate: number;
  sentPerSecond: number;
  /** Events of every type dated within the step, per second: the load on the relay, the stream and the webhook. */
  eventsPerSecond: number;
  eventTypes: Record<string, number>;
  stages: Record<string, StageFigures>;
  /** Every timed event that was stored reached the client and the receiver, and the pipeline drained in time. */
  complete: boolean;
  drainSeconds: number;
  loadAverage: number;
  /**
   * Over the sending phase, in % of one core: each service process, the bench, Kafka and PostgreSQL (the
   * backends of this benchmark's database / every postgres process; both servers also serve other work on
   * a shared machine), and everything else; the machine's busy and stolen time in % of all its cores.
   */
  cpu: { services: string; bench: number; kafka: number; postgres: string; other: number; machine: number; steal: number };
  feedQueuedMaxKb: number;
}

const passes = (r: StepReport) => r.complete && r.sentPerSecond >= 0.97 * r.rate && (r.stages['WebSocket client']?.p99 ?? Infinity) < GOAL_MS;

/** A running layout: its service processes and everything the bench needs to drive and observe them. */
interface Rig {
  layout: string;
  services: ServiceProcess[];
  feed: AisFeed;
  fleet: LiveFleet;
  pool: pg.Pool;
  admin: KafkaAdmin;
  topics: Record<string, string>;
  prefix: string;
  positionsSent: number;
  positionsBase: bigint;
  samples: StepSamples | undefined;
  nextVessel: number;
}

async function startRig(layout: string, signatures: SignatureTally): Promise<Rig & { stop(): Promise<void> }> {
  const prefix = `bench-pipe-${Date.now().toString(36)}-`;
  const databaseUrl = await freshBenchDatabase(DATABASE);
  await migrate(databaseUrl, log);
  const config = loadConfig({ PSS_DATABASE_URL: databaseUrl, PSS_KAFKA_BROKERS: brokers, PSS_TOPIC_PREFIX: prefix, PSS_LOG_LEVEL: 'silent' });
  const kafka = { brokers: config.kafkaBrokers, clientId: 'pss-bench-pipeline', log };
  const admin = new KafkaAdmin(kafka);
  await admin.ensureTopics(topicSpecs(prefix));
  const topics = topicNames(prefix);
  const codec = await createCodec(config.schemaRegistryUrl, topics, config.positionFormat);
  const pool = createPool(databaseUrl, 2, log);
  const port = new RandomPort(42);
  const problems = await replaceAllRules(pool, realisticRules(await storePortZones(pool, port, ZONES), { encounters: true }));
  if (problems.length > 0) throw new Error(`bench rules refused: ${JSON.stringify(problems)}`);
  const { key } = await createApiKey(pool, 'test', { name: 'bench pipeline', scopes: ['events:read', 'webhooks:write'] }, 'bench');

  const feed = await startAisFeed();
  const env = {
    PSS_DATABASE_URL: databaseUrl, PSS_KAFKA_BROKERS: brokers, PSS_TOPIC_PREFIX: prefix, PSS_ENVIRONMENT: 'test',
    PSS_WEBHOOK_ALLOW_LOOPBACK: 'true', PSS_AIS_TCP_SOURCES: `bench=127.0.0.1:${feed.port}`, PSS_AIS_TCP_IDLE_TIMEOUT_MS: '0',
  };
  const nodeArgs = (process.env.PSS_BENCH_SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const services: ServiceProcess[] = [];
  for (const roles of LAYOUTS[layout] as string[]) services.push(await startServiceProcess(roles, env, nodeArgs));
  const apiUrl = services.find((s) => s.url)?.url as string;

  const rig: Rig = { layout, services, feed, fleet: new LiveFleet(port, VESSELS, TRAFFIC_AREA), pool, admin, topics, prefix, positionsSent: 0, positionsBase: 0n, samples: undefined, nextVessel: 0 };
  const observers = await startObservers({ kafka, topics, codec, prefix, apiUrl, apiKey: key, webhookSecret: SECRET, signatures, current: () => rig.samples });
  const created = await fetch(`${apiUrl}/v1/webhooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench pipeline', url: observers.webhookUrl, events: ['*'], secret: SECRET }),
  });
  if (created.status !== 201) throw new Error(`webhook refused: ${created.status} ${await created.text()}`);
  await feed.connected();
  rig.positionsBase = sum(await admin.endOffsets(topics.aisPositions));
  // Static data first, as a receiver would have sent it long before (vessel type rules need it).
  const now = Date.now();
  for (let v = 0; v < VESSELS; v += 1_000) feed.write(Array.from({ length: Math.min(1_000, VESSELS - v) }, (_, i) => staticSentences(v + i, now)).flat());
  return Object.assign(rig, {
    stop: async () => {
      await observers.stop();
      for (const s of [...services].reverse()) await s.stop();
      await feed.close();
      await pool.end();
      await admin.deleteTopics(Object.values(topics)).catch(() => undefined);
      await admin.close();
      const db = new pg.Client({ connectionString: BENCH_ADMIN_URL });
      await db.connect();
      await db.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(DATABASE)} WITH (FORCE)`);
      await db.end();
    },
  });
}

function sum(offsets: Map<number, bigint>): bigint {
  let total = 0n;
  for (const o of offsets.values()) total += o;
  return total;
}

/** Records `group` has not committed yet on `topic`. */
async function lag(rig: Rig, group: string, topic: string): Promise<bigint> {
  const [ends, done] = await Promise.all([rig.admin.endOffsets(topic), rig.admin.committedOffsets(`${rig.prefix}${group}`, topic)]);
  let behind = 0n;
  for (const [p, end] of ends) behind += end - (done.get(p) ?? 0n);
  return behind;
}

/** Writes `rate` position sentences a second for `seconds`, in 10 ms slices, each stamped with its write time. */
async function send(rig: Rig, samples: StepSamples, rate: number, seconds: number): Promise<{ sent: number; queuedMax: number }> {
  const start = performance.now();
  let sent = 0;
  let queuedMax = 0;
  for (let slice = 0; slice < seconds * 100; slice++) {
    const wait = start + slice * 10 - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const due = Math.round(((slice + 1) * rate) / 100) - sent;
    const now = Date.now();
    const lines: string[] = [];
    for (let i = 0; i < due; i++) {
      const v = rig.nextVessel++ % VESSELS;
      lines.push(positionSentence(FIRST_MMSI + v, rig.fleet.fixAt(v, now), now));
      samples.sent.add(`${FIRST_MMSI + v}@${now}`);
    }
    rig.feed.write(lines);
    sent += due;
    queuedMax = Math.max(queuedMax, rig.feed.queuedBytes());
  }
  rig.positionsSent += sent;
  return { sent, queuedMax };
}

/**
 * Waits until every sentence is on ais.positions, the zone processor, the positions sink and the webhook
 * matcher have committed all of it, and nothing reached the client or the receiver for 2 s.
 */
async function drain(rig: Rig, samples: StepSamples): Promise<boolean> {
  const deadline = Date.now() + DRAIN_TIMEOUT_MS;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    const onTopic = sum(await rig.admin.endOffsets(rig.topics.aisPositions as string)) - rig.positionsBase;
    if (onTopic < BigInt(rig.positionsSent) || Date.now() - samples.lastArrivalMs < 2_000) continue;
    const behind = await Promise.all([lag(rig, 'maritime-zones', rig.topics.aisPositions as string), lag(rig, 'vessel-positions', rig.topics.aisPositions as string), lag(rig, 'webhook-matcher', rig.topics.securityEvents as string)]);
    if (behind.every((b) => b === 0n)) return true;
  }
  return false;
}

/**
 * The stages Postgres records: each timed event's row (`created_at` is its transaction's start, now()) and
 * its webhook delivery's row (the matcher's transaction).
 */
async function readStoredStages(rig: Rig, samples: StepSamples): Promise<void> {
  const since = new Date(samples.startMs);
  type Row = { id: string; type: string; timestamp: string; mmsi: string; at_ms: number };
  const stored = await rig.pool.query<Row>(
    `SELECT id, type, body->>'timestamp' AS timestamp, body->'metadata'->>'mmsi' AS mmsi, extract(epoch FROM created_at)::float8 * 1000 AS at_ms
       FROM security_events WHERE type = ANY($1) AND occurred_at >= $2`,
    [[...TRACED_TYPES], since],
  );
  for (const r of stored.rows) samples.event('event stored', { id: r.id, type: r.type, timestamp: r.timestamp, metadata: { mmsi: r.mmsi } }, r.at_ms);
  const queued = await rig.pool.query<Row>(
    `SELECT event_id AS id, event_type AS type, event->>'timestamp' AS timestamp, event->'metadata'->>'mmsi' AS mmsi, extract(epoch FROM created_at)::float8 * 1000 AS at_ms
       FROM webhook_deliveries WHERE event_type = ANY($1) AND created_at >= $2`,
    [[...TRACED_TYPES], since],
  );
  for (const r of queued.rows) samples.event('webhook queued', { id: r.id, type: r.type, timestamp: r.timestamp, metadata: { mmsi: r.mmsi } }, r.at_ms);
}

/** The server processes serving the benchmark's database (the service's pools and the bench's own). */
async function databaseBackends(pool: pg.Pool): Promise<number[]> {
  const { rows } = await pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database()');
  return rows.map((r) => r.pid);
}

async function step(rig: Rig, rate: number, seconds: number): Promise<StepReport> {
  const samples = new StepSamples(Date.now());
  rig.samples = samples;
  const loadAverage = Number(loadavg()[0]?.toFixed(1));
  const backendsBefore = await databaseBackends(rig.pool);
  const cpuBefore = { services: rig.services.map((s) => s.cpuSeconds()), bench: process.cpuUsage(), machine: machineCpuSeconds(), stack: commandCpuSeconds(STACK) };
  const started = performance.now();
  const { sent, queuedMax } = await send(rig, samples, rate, seconds);
  const sendSeconds = (performance.now() - started) / 1000;
  const machine = machineCpuSeconds();
  const benchUsage = process.cpuUsage(cpuBefore.bench);
  const stackAfter = commandCpuSeconds(STACK);
  const stack = commandCpuBetween(cpuBefore.stack, stackAfter);
  const ourBackends = commandCpuBetween(cpuBefore.stack, stackAfter, new Set([...backendsBefore, ...(await databaseBackends(rig.pool))])).postgres ?? 0;
  const serviceSeconds = rig.services.map((s, i) => s.cpuSeconds() - (cpuBefore.services[i] as number));
  const perCore = (seconds: number) => Math.round((100 * seconds) / sendSeconds);
  const kafka = stack.java ?? 0;
  const postgres = stack.postgres ?? 0;
  const bench = (benchUsage.user + benchUsage.system) / 1e6;
  const other = machine.busy - cpuBefore.machine.busy - kafka - postgres - bench - serviceSeconds.reduce((a, b) => a + b, 0);
  const drainStart = performance.now();
  const drained = await drain(rig, samples);
  const drainSeconds = (performance.now() - drainStart) / 1000;
  await readStoredStages(rig, samples);
  const { rows: byType } = await rig.pool.query<{ type: string; n: number }>(
    'SELECT type, count(*)::int AS n FROM security_events WHERE occurred_at >= $1 AND occurred_at < $2 GROUP BY type ORDER BY n DESC',
    [new Date(samples.startMs), new Date(samples.startMs + sendSeconds * 1000)],
  );
  const eventCount = byType.reduce((n, r) => n + r.n, 0);
  rig.samples = undefined;
  const stages = Object.fromEntries(STAGES.map((s) => [s, samples.figures(s)]));
  const stored = stages['event stored']?.count ?? 0;
  const machineTotal = machine.total - cpuBefore.machine.total;
  return {
    layout: rig.layout, rate, sentPerSecond: Math.round(sent / sendSeconds), eventsPerSecond: Math.round(eventCount / sendSeconds), eventTypes: Object.fromEntries(byType.map((r) => [r.type, r.n])), stages,
    complete: drained && stored > 0 && STAGES.every((s) => StepSamples.timesPositions(s) || stages[s]?.count === stored),
    drainSeconds: Number(drainSeconds.toFixed(1)), loadAverage,
    cpu: {
      services: rig.services.map((s, i) => `${s.roles} ${perCore(serviceSeconds[i] as number)}`).join(', '),
      bench: perCore(bench), kafka: perCore(kafka), postgres: `${perCore(ourBackends)}/${perCore(postgres)}`, other: perCore(Math.max(0, other)),
      machine: Math.round((100 * (machine.busy - cpuBefore.machine.busy)) / machineTotal),
      steal: Math.round((100 * (machine.steal - cpuBefore.machine.steal)) / machineTotal),
    },
    feedQueuedMaxKb: Math.round(queuedMax / 1024),
  };
}

/**
 * 1,000 and 10,000/s, then rates up (x1.5) until one misses, then halving the interval between the best hit
 * (0 if none) and the first miss, to 250 positions/s below 5,000/s and 500 above.
 */
async function runLayout(rig: Rig, onStep: (r: StepReport) => void): Promise<StepReport[]> {
  const reports: StepReport[] = [];
  const run = async (rate: number) => {
    const r = await step(rig, rate, SECONDS);
    reports.push(r);
    onStep(r);
    return r;
  };
  await step(rig, WARMUP.rate, WARMUP.seconds);
  for (const rate of RATES) await run(rate);
  let best = Math.max(0, ...reports.filter(passes).map((r) => r.rate));
  let miss = Math.min(...reports.filter((r) => !passes(r) && r.rate > best).map((r) => r.rate));
  const grain = (x: number) => (x < 5_000 ? 250 : 500);
  for (let i = 0; i < SEARCH_STEPS; i++) {
    const next = Number.isFinite(miss) ? Math.round((best + miss) / 2 / grain(best)) * grain(best) : Math.round((best * 1.5) / grain(best)) * grain(best);
    if (next <= best || next >= miss) break;
    const r = await run(next);
    if (!r.complete && r.drainSeconds * 1000 >= DRAIN_TIMEOUT_MS) break; // still behind: later steps would measure its backlog
    if (passes(r)) best = next;
    else miss = next;
  }
  return reports;
}

const cell = (f: StageFigures | undefined) => (f && f.count > 0 ? `${f.p50} / ${f.p95} / **${f.p99}**` : '—');

function table(reports: StepReport[]): string {
  const head = `| Layout | Positions/s (sent) | Events/s (all types) | Events timed (entries) | ${STAGES.map((s) => `→ ${s} p50 / p95 / p99 ms`).join(' | ')} | Complete | CPU, % of a core: service processes; bench; Kafka; Postgres (this database / all); other | Machine busy % (steal) | Load avg |`;
  const rule = `|${'---|'.repeat(STAGES.length + 8)}`;
  const rows = reports.map((r) => {
    const stored = r.stages['event stored'];
    return `| ${r.layout} | ${r.rate.toLocaleString('en')} (${r.sentPerSecond.toLocaleString('en')}) | ${r.eventsPerSecond} | ${stored?.count ?? 0} (${stored?.entries ?? 0}) | ${STAGES.map((s) => cell(r.stages[s])).join(' | ')} | ${r.complete ? 'yes' : `no (drained in ${r.drainSeconds} s)`} | ${r.cpu.services}; ${r.cpu.bench}; ${r.cpu.kafka}; ${r.cpu.postgres}; ${r.cpu.other} | ${r.cpu.machine} (${r.cpu.steal}) | ${r.loadAverage} |`;
  });
  return [head, rule, ...rows].join('\n');
}

async function main(): Promise<void> {
  const unknown = SELECTED.filter((l) => !LAYOUTS[l]);
  if (unknown.length) throw new Error(`unknown layout ${unknown.join(', ')}; known: ${Object.keys(LAYOUTS).join(', ')}`);
  console.log(`pipeline: ${ZONES.toLocaleString('en')} zones (${realisticRulesSummary(true)}), ${VESSELS.toLocaleString('en')} vessels moving at 0-10 m/s, ` +
    `${SECONDS} s per step, timed events: ${[...TRACED_TYPES].join(', ')}; goal p99 to the WebSocket client < ${GOAL_MS} ms`);
  const signatures: SignatureTally = { checked: 0, wrong: 0 };
  const all: StepReport[] = [];
  for (const layout of SELECTED) {
    console.log(`\nlayout ${layout}: ${(LAYOUTS[layout] as string[]).map((r) => `pss start --roles ${r}`).join(' + ')}`);
    const rig = await startRig(layout, signatures);
    try {
      all.push(...(await runLayout(rig, (r) => console.log(JSON.stringify(r)))));
    } finally {
      await rig.stop();
    }
  }
  console.log(`\n${table(all)}\n`);
  for (const layout of SELECTED) {
    const best = Math.max(0, ...all.filter((r) => r.layout === layout && passes(r)).map((r) => r.rate));
    console.log(`${layout}: highest steady rate measured with p99 to the WebSocket client < ${GOAL_MS} ms: ${best ? `${best.toLocaleString('en')} positions/s` : 'none'}`);
  }
  console.log(`webhook signatures checked: ${signatures.checked}, wrong: ${signatures.wrong}`);
  process.exit(signatures.wrong === 0 ? 0 : 1);
}

await main();
