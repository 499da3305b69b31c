// Response loop benchmark (issue 23, "Done means"): from an event's store to its gate lock command on
// gate.commands, at a steady 200 events/s for 20 s (goal p99 <= 250 ms). Every event is a zone_entry of a
// vessel into one zone whose alert rule says `on_entry: { alert_level, actions: [lock_gates [G1]] }`; it is
// stored as every module stores events (storeEvents in a transaction, then the relay), and the response
// loop (startResponse: consumer group on security.events, incident attach + planning + action log in one
// transaction per batch, the executor) and the gate command sender (outbox -> gate.commands) run in this
// process as a processors instance runs them. A consumer here reads gate.commands and times each lock
// command from its cause's storeEvents call. The level's defaults come on top of the rule's lock, as in
// the service (PSS_BENCH_RESPONSE_LEVEL, default high: push + audio alarm, escalation to the supervisor, an
// automatic drone dispatch; the parties and push channel name no webhooks, so their actions store their
// events and records and enqueue no deliveries). Events come from PSS_BENCH_RESPONSE_VESSELS vessels
// (default 1,000), so each vessel's incident is opened by its first entry and joined by the next ones.
// Stages per lock action, from the records: stored -> published on security.events (the relay's record
// timestamp) -> planning transaction began (response_actions.created_at, its now()) -> the executor's lock
// transaction began (done_at, the outbox row's created_at) -> Kafka acknowledged the command (sent_at) ->
// read here. Run: npm run bench response   (PSS_BENCH_RESPONSE_RATE, PSS_BENCH_RESPONSE_SECONDS)
import { loadavg } from 'node:os';
import pg from 'pg';
import { eventId } from '../events/event-id.ts';
import { storeEvents } from '../events/store.ts';
import { KafkaConsumer } from '../platform/kafka/index.ts';
import { createLogger } from '../platform/log.ts';
import { inTransaction } from '../platform/postgres.ts';
import { startGateCommandSender } from '../processors/gate/command-sender.ts';
import { replaceZoneRules } from '../processors/maritime/rules-config/rule-store.ts';
import { ZoneStore } from '../processors/maritime/zones/zone-store.ts';
import { startResponse } from '../response/role.ts';
import { replaceSystemConfig } from '../response/settings/system-config-store.ts';
import type { SecurityEvent } from '../schemas/event.ts';
import type { GateCommand } from '../schemas/gate-transaction.ts';
import { DEFAULT_SYSTEM_CONFIG } from '../schemas/system-config.ts';
import { ALERT_LEVELS, type AlertLevel } from '../schemas/zone.ts';
import { benchContext } from './support/bench-context.ts';
import { dropBenchDatabase } from './support/bench-database.ts';
import { machineCpuSeconds } from './support/service-process.ts';

const RATE = Number(process.env.PSS_BENCH_RESPONSE_RATE ?? 200);
const SECONDS = Number(process.env.PSS_BENCH_RESPONSE_SECONDS ?? 20);
const VESSELS = Number(process.env.PSS_BENCH_RESPONSE_VESSELS ?? 1_000);
const LEVEL = (process.env.PSS_BENCH_RESPONSE_LEVEL ?? 'high') as AlertLevel;
const GOAL_P99_MS = 250;
const DATABASE = 'pss_bench_response';
const GATE = 'G1';
const ZONE = 'Ammunition quay';
const TICK_MS = 50;

const log = createLogger(process.env.PSS_BENCH_LOG_LEVEL ?? 'silent');
/** Wall-clock milliseconds with a fraction: comparable with Postgres and Kafka timestamps on this host. */
const wall = () => performance.timeOrigin + performance.now();

function entry(n: number, at: number): SecurityEvent {
  const mmsi = 219_000_000 + (n % VESSELS);
  return {
    id: eventId(`bench-response:${process.pid}:${n}`), type: 'zone_entry', timestamp: new Date(at).toISOString(), category: 'maritime', severity: LEVEL === 'info' ? 'low' : LEVEL,
    source_module: 'maritime.zones', source_device: 'ais', title: `Vessel ${mmsi} entered ${ZONE}`, description: 'benchmark event',
    location: { lat: 55.503, lng: 16.605, zone: ZONE }, metadata: { mmsi, zone_type: 'restricted' }, requires_action: false, assigned_to: '', incident_id: null,
  };
}

const pct = (sorted: readonly number[], q: number) => sorted.length === 0 ? NaN : (sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number);
const fmt = (n: number) => n.toFixed(1);

function summary(values: number[]): { p50: number; p95: number; p99: number; max: number } {
  const s = [...values].sort((a, b) => a - b);
  return { p50: Number(fmt(pct(s, 0.5))), p95: Number(fmt(pct(s, 0.95))), p99: Number(fmt(pct(s, 0.99))), max: Number(fmt(s.at(-1) ?? NaN)) };
}

async function main(): Promise<void> {
  if (!ALERT_LEVELS.includes(LEVEL)) throw new Error(`PSS_BENCH_RESPONSE_LEVEL must be one of ${ALERT_LEVELS.join(', ')}`);
  const prefix = `bench-response-${Date.now().toString(36)}-`;
  const { ctx, close } = await benchContext({ database: DATABASE, prefix, log, startRelay: true });
  const { pool } = ctx;

  // The site: gate G1 in the system configuration, one zone whose entry locks it.
  const configured = await replaceSystemConfig(pool, { ...DEFAULT_SYSTEM_CONFIG, gates: [{ id: GATE, name: 'North gate' }] }, { credentialId: 'bench', principal: 'bench', kind: 'cli' });
  if (configured.problems) throw new Error(`system configuration refused: ${JSON.stringify(configured.problems)}`);
  const zone = await new ZoneStore(pool).create({
    name: ZONE, type: 'restricted', alert_level: 'critical', active: true,
    geometry: { type: 'Polygon', coordinates: [[[16.6, 55.5], [16.61, 55.5], [16.61, 55.506], [16.6, 55.506], [16.6, 55.5]]] },
  });
  const problems = await replaceZoneRules(pool, zone.id, { alert_rules: { on_entry: { alert_level: LEVEL, actions: [{ action: 'lock_gates', gates: [GATE] }] } } });
  if (problems.length > 0) throw new Error(`alert rule refused: ${JSON.stringify(problems)}`);

  // The observers: when each event reached security.events (the relay's record time), and each lock command's arrival.
  const appended = new Map<string, number>();
  const published = new Map<string, number>();
  const arrived = new Map<string, number>();
  let commands = 0;
  const events = new KafkaConsumer(ctx.kafka, { groupId: `${prefix}bench-events`, topics: [ctx.topics.securityEvents], startAt: 'latest', lingerMs: 0, commitOffsets: false });
  await events.run(async (records) => {
    for (const r of records) if (r.key !== undefined && r.headers.change !== 'updated' && appended.has(r.key)) published.set(r.key, r.timestamp);
  });
  const gateCommands = new KafkaConsumer(ctx.kafka, { groupId: `${prefix}bench-commands`, topics: [ctx.topics.gateCommands], startAt: 'latest', lingerMs: 0, commitOffsets: false });
  await gateCommands.run(async (records) => {
    const now = wall();
    const { values } = await ctx.codec.decode('gateCommands', records);
    for (const { value } of values as { value: GateCommand }[]) {
      commands++;
      const cause = value.cause?.event_id;
      if (value.action === 'lock' && cause !== undefined && appended.has(cause) && !arrived.has(cause)) arrived.set(cause, now);
    }
  });

  const response = await startResponse(ctx);
  const sender = await startGateCommandSender(ctx);
  // The groups join and find their offsets before the clock starts.
  await new Promise((r) => setTimeout(r, 4_000));

  const loadBefore = loadavg();
  const cpuBefore = machineCpuSeconds();
  const total = RATE * SECONDS;
  const perTick = Math.max(1, Math.round((RATE * TICK_MS) / 1000));
  const start = performance.now();
  let behind = 0;
  for (let n = 0; n < total; n += perTick) {
    const due = start + (n / RATE) * 1000;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    else if (wait < -TICK_MS) behind++;
    const at = wall();
    const batch = Array.from({ length: Math.min(perTick, total - n) }, (_, i) => entry(n + i, at));
    for (const e of batch) appended.set(e.id, at);
    await inTransaction(pool, (c) => storeEvents(c, batch));
    ctx.relay.wake();
  }
  const offeredSeconds = (performance.now() - start) / 1000;
  const deadline = Date.now() + 60_000;
  while (arrived.size < total && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const drainedSeconds = (performance.now() - start) / 1000;
  const cpuAfter = machineCpuSeconds();
  const loadAfter = loadavg();
  // The rest of the response (incidents, notifications, escalations) runs behind the locks: wait for it
  // too, so its delays are reported beside the lock's.
  const restDeadline = Date.now() + 120_000;
  while (Date.now() < restDeadline && !(await responseSettled(pool, total))) await new Promise((r) => setTimeout(r, 250));
  const settledSeconds = (performance.now() - start) / 1000;
  await new Promise((r) => setTimeout(r, 1_000)); // the last actions' records settle

  await response.stop();
  await sender.stop();
  await events.stop();
  await gateCommands.stop();

  const report = await stages(pool, appended, published, arrived);
  const planning = await planningBatches(pool, published);
  const rest = await restOfResponse(pool, appended);
  const { rows: byKind } = await pool.query<{ kind: string; status: string; n: number }>('SELECT kind, status, count(*)::int AS n FROM response_actions GROUP BY 1, 2 ORDER BY 1, 2');
  const { rows: [incidents] } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM incidents');
  const { rows: [stored] } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM security_events');
  await close();
  await dropDatabase();

  const endToEnd = summary([...arrived].map(([id, at]) => at - (appended.get(id) as number)));
  const busy = (cpuAfter.busy - cpuBefore.busy) / (cpuAfter.total - cpuBefore.total);
  console.log(`${total} zone_entry events at ${RATE}/s offered over ${offeredSeconds.toFixed(1)} s (${behind} ticks late); rule: on_entry ${LEVEL} + lock_gates [${GATE}]; ${VESSELS} vessels`);
  console.log(`actions recorded: ${byKind.map((r) => `${r.kind} ${r.status} ${r.n}`).join(', ')}; incidents ${incidents?.n}; events stored ${stored?.n} (entries, incident and response events)`);
  console.log(`lock commands read: ${arrived.size}/${total} (all commands on the topic ${commands}); all arrived ${drainedSeconds.toFixed(1)} s after the first append`);
  console.log(`machine: ${(busy * 100).toFixed(0)} % of both cores busy during the run; load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')} before, ${loadAfter.map((l) => l.toFixed(2)).join(' ')} after`);
  console.log(`planning: ${planning.batches} batches (transactions), median ${planning.medianEvents} events each; ` +
    `${planning.backlogged} began with a backlog, at ${planning.msPerEvent} ms per event (the planner's cost per event while it has one)`);
  console.log(`the rest of the response (main group: incidents, notifications, escalations) settled ${settledSeconds.toFixed(1)} s after the first append; from the event's store (ms):`);
  console.table(rest);
  console.log('stages of the lock (ms):');
  console.table(report);
  console.log(`event stored -> lock command on gate.commands: p50 ${endToEnd.p50} ms, p95 ${endToEnd.p95} ms, p99 ${endToEnd.p99} ms, max ${endToEnd.max} ms ` +
    `(goal p99 <= ${GOAL_P99_MS} ms: ${arrived.size === total && endToEnd.p99 <= GOAL_P99_MS ? 'met' : 'MISSED'})`);
  console.log(JSON.stringify({ rate: RATE, seconds: SECONDS, level: LEVEL, vessels: VESSELS, events: total, locks_read: arrived.size, end_to_end_ms: endToEnd, stages_ms: report, rest_ms: rest, settled_seconds: Number(settledSeconds.toFixed(1)), planning, cpu_busy: Number(busy.toFixed(2)), load_before: loadBefore, load_after: loadAfter }));
}

/** The per-stage delays of each lock action, from the action log, the outbox and the observers' times. */
async function stages(pool: pg.Pool, appended: Map<string, number>, published: Map<string, number>, arrived: Map<string, number>): Promise<Record<string, ReturnType<typeof summary>>> {
  const { rows } = await pool.query<{ event_id: string; recorded_ms: number; executed_ms: number; sent_ms: number }>(
    `SELECT a.event_id, extract(epoch FROM a.created_at) * 1000 AS recorded_ms, extract(epoch FROM a.done_at) * 1000 AS executed_ms,
            extract(epoch FROM o.sent_at) * 1000 AS sent_ms
       FROM response_actions a JOIN gate_command_outbox o ON o.command->'cause'->>'action_id' = a.id
      WHERE a.kind = 'lock_gate' AND a.status = 'done' AND o.sent_at IS NOT NULL`,
  );
  const s = { published: [] as number[], planned: [] as number[], executed: [] as number[], acknowledged: [] as number[], read: [] as number[] };
  for (const r of rows) {
    const at = appended.get(r.event_id);
    const pub = published.get(r.event_id);
    const read = arrived.get(r.event_id);
    if (at === undefined || pub === undefined || read === undefined) continue;
    s.published.push(pub - at);
    s.planned.push(Number(r.recorded_ms) - pub);
    s.executed.push(Number(r.executed_ms) - Number(r.recorded_ms));
    s.acknowledged.push(Number(r.sent_ms) - Number(r.executed_ms));
    s.read.push(read - Number(r.sent_ms));
  }
  return {
    'stored -> on security.events': summary(s.published),
    'on topic -> planning began': summary(s.planned),
    'planning began -> lock executed': summary(s.executed),
    'executed -> Kafka acknowledged': summary(s.acknowledged),
    'acknowledged -> read here': summary(s.read),
  };
}

/**
 * The planner's cost per event while it has a backlog. Its batches are told apart by their transaction's
 * now() (every action a batch records shares its created_at). Where a batch's first event was already on
 * the topic when the batch before it began, that batch waited for the one before it, so the time between
 * the two starts, over the first one's events, is what planning took. NaN when the planner never fell behind.
 */
async function planningBatches(pool: pg.Pool, published: Map<string, number>): Promise<{ batches: number; medianEvents: number; backlogged: number; msPerEvent: number }> {
  const { rows } = await pool.query<{ at_ms: number; events: string[] }>(
    `SELECT extract(epoch FROM attached_at) * 1000 AS at_ms, array_agg(DISTINCT event_id) AS events
       FROM incident_events GROUP BY attached_at ORDER BY attached_at`,
  );
  const sizes = rows.map((r) => r.events.length).sort((a, b) => a - b);
  let ms = 0;
  let events = 0;
  let backlogged = 0;
  for (let i = 0; i + 1 < rows.length; i++) {
    const [batch, next] = [rows[i], rows[i + 1]] as [(typeof rows)[number], (typeof rows)[number]];
    const waiting = Math.min(...next.events.map((id) => published.get(id) ?? Infinity));
    if (waiting > Number(batch.at_ms)) continue;
    backlogged++;
    ms += Number(next.at_ms) - Number(batch.at_ms);
    events += batch.events.length;
  }
  return { batches: rows.length, medianEvents: pct(sizes, 0.5), backlogged, msPerEvent: Number(fmt(events === 0 ? NaN : ms / events)) };
}

/** Whether every event is attached to its incident and no action waits for a first attempt or a retry. */
async function responseSettled(pool: pg.Pool, total: number): Promise<boolean> {
  const { rows: [r] } = await pool.query<{ attached: number; waiting: number }>(
    `SELECT (SELECT count(*)::int FROM incident_events) AS attached,
            (SELECT count(*)::int FROM response_actions WHERE status IN ('pending', 'failed')) AS waiting`,
  );
  return r !== undefined && r.attached >= total && r.waiting === 0;
}

/** From each event's store to its attachment to an incident, and to each kind of action done (first attempts, not muted). */
async function restOfResponse(pool: pg.Pool, appended: Map<string, number>): Promise<Record<string, ReturnType<typeof summary>>> {
  const { rows } = await pool.query<{ what: string; event_id: string; at_ms: number }>(
    `SELECT 'attached to its incident' AS what, event_id, extract(epoch FROM attached_at) * 1000 AS at_ms FROM incident_events
     UNION ALL
     SELECT kind || ' ' || target || ' done', event_id, extract(epoch FROM done_at) * 1000 FROM response_actions
      WHERE status IN ('done', 'waiting_fleet') AND attempts = 1 AND kind <> 'lock_gate'`,
  );
  const by = new Map<string, number[]>();
  for (const r of rows) {
    const at = appended.get(r.event_id);
    if (at === undefined) continue;
    const values = by.get(r.what) ?? [];
    values.push(Number(r.at_ms) - at);
    by.set(r.what, values);
  }
  return Object.fromEntries([...by].sort(([a], [b]) => a.localeCompare(b)).map(([what, values]) => [`stored -> ${what} (${values.length})`, summary(values)]));
}

function dropDatabase(): Promise<void> {
  return dropBenchDatabase(DATABASE);
}

await main();
process.exit(0);
