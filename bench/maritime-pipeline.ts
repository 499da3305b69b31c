// Maritime zone pipeline benchmark (issue 5): 1,000 zones, 10,000 vessels, on the real broker and PostGIS.
//   1. throughput: positions per second through zone + dwell evaluation by one processor instance,
//      from a preloaded ais.positions topic (Kafka consume, H3 + exact test, rules, state and event writes);
//   2. latency: p50/p99 from a position's append to Kafka to its event's arrival on security.events, at a
//      steady 10,000 positions per second;
//   3. the naive alternative on the same input: one PostGIS ST_Covers/ST_DWithin query per position.
// Run: npm run bench maritime-pipeline   (or node --import tsx bench/maritime-pipeline.ts)
import pg from 'pg';
import { replaceAllRules } from '../processors/maritime/rules-config/rule-store.ts';
import { KafkaConsumer } from '../platform/kafka/index.ts';
import { createLogger } from '../platform/log.ts';
import { metricTotal } from '../platform/metrics.ts';
import { startZoneProcessors } from '../processors/maritime/zone-processor.ts';
import { LOCATE_POSITION_SQL } from '../processors/maritime/zones/zone-sql.ts';
import type { VesselPosition } from '../schemas/ais.ts';
import { RandomPort, TRAFFIC_AREA } from './support/random-port.ts';
import { benchContext } from './support/bench-context.ts';
import { profilePhase } from './support/phase-profile.ts';
import { storePortZones } from './support/port-zones.ts';
import { realisticRules, realisticRulesSummary } from './support/realistic-rules.ts';

const ZONES = 1_000;
const VESSELS = 10_000;
const THROUGHPUT_REPORTS = Number(process.env.PSS_BENCH_REPORTS ?? 30); // per vessel: 300,000 positions by default
const STEADY_RATE = 10_000; // positions per second
const STEADY_SECONDS = 20;
const NAIVE_POSITIONS = 20_000;
const START = Date.parse('2026-11-20T00:00:00Z');

const log = createLogger(process.env.PSS_BENCH_LOG_LEVEL ?? 'silent');

/** PSS_BENCH_ENCOUNTERS=0 leaves encounter rules out and every vessel at 5 to 14 kn (main's workload, for A/B). */
const ENCOUNTERS = process.env.PSS_BENCH_ENCOUNTERS !== '0';
const ZONE_WORKERS = Number(process.env.PSS_BENCH_ZONE_WORKERS ?? 2);

async function main(): Promise<void> {
  const prefix = `bench-${Date.now().toString(36)}-`;
  // As in the service: the processor stores events, this instance's relay publishes them.
  const { ctx, relay, close } = await benchContext({ database: 'pss_bench', prefix, log, startRelay: true });
  const { pool, producer, kafka } = ctx;

  const port = new RandomPort(42);
  let t = performance.now();
  const names = await storePortZones(pool, port, ZONES);
  const zonesMs = performance.now() - t;
  // PSS_BENCH_RULES=0 measures the zones alone, for comparison.
  const ruleProblems = process.env.PSS_BENCH_RULES === '0' ? [] : await replaceAllRules(pool, realisticRules(names, { encounters: ENCOUNTERS }));
  if (ruleProblems.length > 0) throw new Error(`bench rules refused: ${JSON.stringify(ruleProblems)}`);

  // 1. Throughput from a preloaded topic.
  const tracks = port.tracks(VESSELS, THROUGHPUT_REPORTS + STEADY_RATE * STEADY_SECONDS / VESSELS, 10, TRAFFIC_AREA);
  const reportsPerVessel = tracks.length / 2 / VESSELS;
  const positionAt = (v: number, r: number): VesselPosition => ({
    kind: 'position', msg_type: 1, mmsi: 200_000_000 + v, source: 'bench',
    reported_at: new Date(START + r * 10_000 + v).toISOString(), received_at: new Date(START + r * 10_000 + v).toISOString(), raw: ['bench'],
    lat: tracks[2 * (v * reportsPerVessel + r)] as number, lon: tracks[2 * (v * reportsPerVessel + r) + 1] as number,
    // 5 to 14 kn: a fifth of the vessels exceed the 12 kn limit of the zones that have speed rules; with
    // encounters a tenth are at 1 kn instead of 5 (slow: they write the encounter table in its zones).
    sog: ENCOUNTERS && v % 10 === 0 ? 1 : 5 + (v % 10), cog: 90, heading: 90,
  });
  const preload: VesselPosition[] = [];
  for (let r = 0; r < THROUGHPUT_REPORTS; r++) for (let v = 0; v < VESSELS; v++) preload.push(positionAt(v, r));
  t = performance.now();
  for (let i = 0; i < preload.length; i += 5_000) {
    await producer.send(preload.slice(i, i + 5_000).map((p) => ({ topic: ctx.topics.aisPositions, key: String(p.mmsi), value: ctx.codec.encode('aisPositions', p) })));
  }
  const produceMs = performance.now() - t;

  const profiled = await profilePhase();
  // PSS_BENCH_ZONE_WORKERS=N: the processor as N members in worker threads (PSS_MARITIME_ZONE_WORKERS).
  const processor = await startZoneProcessors(ctx, ZONE_WORKERS, 100);
  const firstAt = await untilProcessed(1);
  const lastAt = await untilProcessed(preload.length);
  await profiled();
  const throughput = preload.length / ((lastAt - firstAt) / 1000);
  const eventsAfterPreload = await countEvents(pool);

  // 2. Latency at a steady rate: positions appended in 10 ms slices; events read back as they arrive.
  const appendedAt = new Map<string, number>();
  const latencies: number[] = [];
  const reader = new KafkaConsumer(kafka, { groupId: `${prefix}latency`, topics: [ctx.topics.securityEvents], startAt: 'latest', lingerMs: 0 });
  await reader.run(async (records) => {
    const now = performance.now();
    const { values } = await ctx.codec.decode('securityEvents', records);
    for (const { value: e } of values) {
      // Entry, approach and dwell events carry the time of the report that caused them.
      const sent = appendedAt.get(`${(e.metadata as { mmsi: number }).mmsi}@${e.timestamp}`);
      if (sent !== undefined && e.type !== 'zone_exit') latencies.push(now - sent);
    }
  });
  await new Promise((r) => setTimeout(r, 2_000)); // let the reader join before the first slice
  const perSlice = STEADY_RATE / 100;
  const steadyStart = performance.now();
  let sent = 0;
  for (let slice = 0; slice < STEADY_SECONDS * 100; slice++) {
    const due = steadyStart + slice * 10;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const batch: VesselPosition[] = [];
    for (let i = 0; i < perSlice; i++, sent++) batch.push(positionAt(sent % VESSELS, THROUGHPUT_REPORTS + Math.floor(sent / VESSELS)));
    const records = batch.map((p) => ({ topic: ctx.topics.aisPositions, key: String(p.mmsi), value: ctx.codec.encode('aisPositions', p) }));
    void producer.send(records).then(() => {
      const now = performance.now();
      for (const p of batch) appendedAt.set(`${p.mmsi}@${p.reported_at}`, now);
    });
  }
  const steadySeconds = (performance.now() - steadyStart) / 1000;
  await untilProcessed(preload.length + sent);
  await new Promise((r) => setTimeout(r, 1_000));
  await reader.stop();
  await processor.stop();
  await relay.stop();

  // 3. The naive alternative on the same input.
  const naiveInput = preload.slice(0, NAIVE_POSITIONS);
  const clients = 4;
  t = performance.now();
  let next = 0;
  let naiveHits = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < naiveInput.length) {
        const p = naiveInput[next++] as VesselPosition;
        const { rows } = await pool.query(LOCATE_POSITION_SQL, [p.lon, p.lat]);
        naiveHits += rows.length;
      }
    }),
  );
  const naiveRate = naiveInput.length / ((performance.now() - t) / 1000);

  latencies.sort((a, b) => a - b);
  const pct = (q: number) => (latencies.length ? Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] as number) : NaN);
  const report = {
    zones: ZONES,
    zone_workers: ZONE_WORKERS,
    rule_sets: process.env.PSS_BENCH_RULES === '0' ? 'none' : `${realisticRulesSummary(ENCOUNTERS)}${ENCOUNTERS ? ' (1/10 of vessels at 1 kn)' : ''}`,
    zones_stored_ms: Math.round(zonesMs),
    vessels: VESSELS,
    throughput: {
      positions: preload.length,
      produce_per_second: Math.round(preload.length / (produceMs / 1000)),
      evaluated_per_second: Math.round(throughput),
      events: eventsAfterPreload,
    },
    steady: {
      target_per_second: STEADY_RATE,
      achieved_per_second: Math.round(sent / steadySeconds),
      events_timed: latencies.length,
      latency_ms_p50: pct(0.5),
      latency_ms_p99: pct(0.99),
      latency_ms_max: Math.round(latencies[latencies.length - 1] ?? NaN),
    },
    naive: { positions: naiveInput.length, clients, per_second: Math.round(naiveRate), zone_hits: naiveHits },
    speedup_vs_naive: Number((throughput / naiveRate).toFixed(1)),
  };
  console.log(JSON.stringify(report, null, 2));

  await close();
}

async function untilProcessed(n: number, timeoutMs = Number(process.env.PSS_BENCH_TIMEOUT_MS ?? 600_000)): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await metricTotal('pss_maritime_positions_total');
    if (value >= n) return performance.now();
    if (Date.now() > deadline) throw new Error(`only ${value} of ${n} positions processed in time`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function countEvents(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM security_events');
  return rows[0]?.n ?? 0;
}

await main();
process.exit(0);
