// Webhooks benchmark (issue 14): (1) signed deliveries per second from one dispatcher to local
// receivers with 100 webhooks (goal >= 2,000/s), the queue loaded beforehand; (2) the delay from an
// event's append (its storeEvents call) to the first attempt of its delivery arriving at the receiver,
// through relay -> security.events -> matcher -> queue -> dispatcher, at 200 events/s (goal p99 <= 250 ms).
// The receivers run in this process (node:http on loopback) and check every 50th signature.
// Run: npm run bench webhooks   (PSS_BENCH_WEBHOOK_DELIVERIES=20000, PSS_BENCH_WEBHOOK_SECONDS=20; the
// throughput phase also takes PSS_WEBHOOK_* settings from the environment, e.g. PSS_WEBHOOK_CONCURRENCY)
import pg from 'pg';
import { authFeature, webhooksFeature } from '../app/features.ts';
import { loadConfig } from '../app/config.ts';
import { startService } from '../app/service.ts';
import { Dispatcher } from '../delivery/webhooks/dispatcher.ts';
import { enqueueDeliveries } from '../delivery/webhooks/queue.ts';
import { SecretBox } from '../delivery/webhooks/secret-box.ts';
import { createWebhook } from '../delivery/webhooks/store.ts';
import { eventId } from '../events/event-id.ts';
import { storeEvents } from '../events/store.ts';
import { systemClock } from '../platform/clock.ts';
import { KafkaAdmin } from '../platform/kafka/index.ts';
import { createLogger } from '../platform/log.ts';
import { createPool, inTransaction, migrate } from '../platform/postgres.ts';
import { topicSpecs } from '../platform/topics.ts';
import type { SecurityEvent } from '../schemas/event.ts';
import { freshBenchDatabase } from './support/bench-database.ts';
import { startSignedReceiver, type DeliveryBody, type SignatureTally } from './support/signed-receiver.ts';

const DELIVERIES = Number(process.env.PSS_BENCH_WEBHOOK_DELIVERIES ?? 20_000);
const WEBHOOKS = 100;
const RATE = 200;
const SECONDS = Number(process.env.PSS_BENCH_WEBHOOK_SECONDS ?? 20);
const LATENCY_WEBHOOKS = Number(process.env.PSS_BENCH_WEBHOOK_LATENCY_HOOKS ?? 1);
const SECRET = 'whsec_bench_0123456789abcdefgh';
const log = createLogger(process.env.PSS_BENCH_LOG_LEVEL ?? 'silent');
const brokers = process.env.PSS_KAFKA_BROKERS ?? '127.0.0.1:9092';

const signatures: SignatureTally = { checked: 0, wrong: 0 };
const receiver = (onBody: (body: DeliveryBody) => void) => startSignedReceiver(SECRET, signatures, onBody);

function event(n: number, at = Date.now()): SecurityEvent {
  return {
    id: eventId(`bench-webhooks:${process.pid}:${n}`), type: 'zone_entry', timestamp: new Date(at).toISOString(), category: 'maritime', severity: 'high',
    source_module: 'bench.webhooks', source_device: 'bench', title: `Vessel entered zone (${n})`, description: 'benchmark event',
    location: { lat: 55.69, lng: 12.6, zone: 'Inner harbour' }, metadata: { mmsi: 219000000 + (n % 1000) }, requires_action: true, assigned_to: '', incident_id: null,
  };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

async function throughput(databaseUrl: string): Promise<void> {
  const config = loadConfig({ ...process.env, PSS_DATABASE_URL: databaseUrl, PSS_WEBHOOK_ALLOW_LOOPBACK: 'true', PSS_LOG_LEVEL: 'silent' });
  const pool = createPool(databaseUrl, 10);
  let received = 0;
  const rx = await receiver(() => received++);
  const box = new SecretBox('');
  const hooks: string[] = [];
  for (let i = 0; i < WEBHOOKS; i++) hooks.push((await createWebhook(pool, box, { name: `bench ${i}`, url: `${rx.url}/hook/${i}`, events: ['*'], secret: SECRET })).id);
  for (let from = 0; from < DELIVERIES; from += 2_000) {
    const batch = Array.from({ length: Math.min(2_000, DELIVERIES - from) }, (_, i) => ({ webhookId: hooks[(from + i) % WEBHOOKS] as string, event: event(from + i) }));
    await enqueueDeliveries(pool, batch, Date.now());
  }
  const dispatcher = new Dispatcher({ pool, config, clock: systemClock, box, relay: { wake: () => undefined }, log });
  const started = performance.now();
  dispatcher.start();
  while (received < DELIVERIES) await new Promise((r) => setTimeout(r, 20));
  const sentSeconds = (performance.now() - started) / 1000;
  await dispatcher.stop();
  const recordedSeconds = (performance.now() - started) / 1000;
  const { rows } = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'delivered'`);
  console.log(`throughput: ${DELIVERIES} deliveries to ${WEBHOOKS} webhooks: ${Math.round(DELIVERIES / sentSeconds)} signed deliveries/s sent (goal >= 2,000/s); ` +
    `${Math.round(Number(rows[0]?.n) / recordedSeconds)}/s sent and recorded (${rows[0]?.n} recorded delivered)`);
  const { rows: other } = await pool.query(`SELECT status, last_error, count(*) AS n FROM webhook_deliveries WHERE status <> 'delivered' GROUP BY 1, 2`);
  if (other.length > 0) console.log('  not delivered:', JSON.stringify(other));
  await pool.query('DELETE FROM webhooks');
  await pool.end();
  rx.close();
}

async function latency(databaseUrl: string): Promise<void> {
  const prefix = `bench-webhooks-${process.pid}.`;
  const config = loadConfig({
    PSS_DATABASE_URL: databaseUrl, PSS_KAFKA_BROKERS: brokers, PSS_TOPIC_PREFIX: prefix, PSS_LOG_LEVEL: 'silent', PSS_HTTP_PORT: '0', PSS_WEBHOOK_ALLOW_LOOPBACK: 'true',
  });
  const appended = new Map<string, number>();
  const delays: number[] = [];
  const firstSeen = new Set<string>();
  const rx = await receiver((body) => {
    if (firstSeen.has(body.id)) return;
    firstSeen.add(body.id);
    const at = appended.get(body.event.id);
    if (at !== undefined) delays.push(performance.now() - at);
  });
  const service = await startService(config, ['api'], log, [authFeature, webhooksFeature()]);
  try {
    const box = new SecretBox('');
    for (let i = 0; i < LATENCY_WEBHOOKS; i++) await createWebhook(service.context.pool, box, { name: `latency ${i}`, url: `${rx.url}/l/${i}`, events: ['zone_entry'], secret: SECRET });
    // The matcher's group joins and finds its offsets before the clock starts.
    await new Promise((r) => setTimeout(r, 3_000));
    const total = RATE * SECONDS;
    const tickMs = 50;
    const perTick = (RATE * tickMs) / 1000;
    const start = performance.now();
    for (let n = 0; n < total; n += perTick) {
      const due = start + (n / RATE) * 1000;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const events = Array.from({ length: perTick }, (_, i) => event(1_000_000 + n + i));
      const now = performance.now();
      for (const e of events) appended.set(e.id, now);
      await inTransaction(service.context.pool, (c) => storeEvents(c, events));
      service.context.relay.wake();
    }
    const expected = total * LATENCY_WEBHOOKS;
    const deadline = Date.now() + 30_000;
    while (delays.length < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const sorted = [...delays].sort((a, b) => a - b);
    const { rows: stages } = await service.context.pool.query<{ matched_p50: number; matched_p99: number; sent_p50: number; sent_p99: number }>(
      `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY m) AS matched_p50, percentile_cont(0.99) WITHIN GROUP (ORDER BY m) AS matched_p99,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY s) AS sent_p50, percentile_cont(0.99) WITHIN GROUP (ORDER BY s) AS sent_p99
         FROM (SELECT extract(epoch FROM d.created_at - (d.event->>'timestamp')::timestamptz) * 1000 AS m,
                      extract(epoch FROM a.attempted_at - d.created_at) * 1000 AS s
                 FROM webhook_deliveries d JOIN webhook_attempts a ON a.delivery_id = d.id AND a.attempt = 1) x`,
    );
    console.log(`  stages (ms): event -> delivery recorded p50 ${stages[0]?.matched_p50?.toFixed(1)} p99 ${stages[0]?.matched_p99?.toFixed(1)}; recorded -> attempt answered p50 ${stages[0]?.sent_p50?.toFixed(1)} p99 ${stages[0]?.sent_p99?.toFixed(1)}`);
    console.log(`latency: ${total} events at ${RATE}/s to ${LATENCY_WEBHOOKS} webhooks (${delays.length}/${expected} first attempts seen): append -> first attempt ` +
      `p50 ${percentile(sorted, 50).toFixed(1)} ms, p95 ${percentile(sorted, 95).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${sorted.at(-1)?.toFixed(1)} ms (goal p99 <= 250 ms)`);
  } finally {
    await service.stop();
    rx.close();
    const admin = new KafkaAdmin({ brokers: brokers.split(','), clientId: 'bench-webhooks', log });
    await admin.deleteTopics(topicSpecs(prefix).map((t) => t.name)).catch(() => undefined);
    await admin.close();
  }
}

const databaseUrl = await freshBenchDatabase('pss_bench_webhooks');
await migrate(databaseUrl, log);
await throughput(databaseUrl);
await latency(databaseUrl);
console.log(`signatures checked: ${signatures.checked}, wrong: ${signatures.wrong}`);
const admin = new pg.Client({ connectionString: databaseUrl.replace(/\/[^/]+$/, '/postgres') });
await admin.connect();
await admin.query('DROP DATABASE IF EXISTS pss_bench_webhooks WITH (FORCE)');
await admin.end();
process.exit(signatures.wrong === 0 ? 0 : 1);
