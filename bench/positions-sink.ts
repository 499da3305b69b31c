// Positions sink benchmark (issue 13, goal >= 50,000 positions/s on one instance): 10,000 vessels on the
// real broker and PostGIS.
//   1. end to end: a preloaded ais.positions topic drained by one sink instance (Kafka consume, codec
//      decode and validation, unnest bulk insert into the day partitions with all three indexes, the
//      vessels last-position upsert, offset commits);
//   2. the database alone: the same rows through insertPositions in batches of 5,000 (what the sink's
//      Postgres side costs without Kafka);
//   3. the same rows again (a full re-read): ON CONFLICT DO NOTHING over existing keys.
// Run: npm run bench positions-sink   (PSS_BENCH_REPORTS: reports per vessel, default 30 = 300,000 positions)
import { createLogger } from '../platform/log.ts';
import { registry } from '../platform/metrics.ts';
import { positionRow, type PositionRow } from '../processors/vessels/position-rows.ts';
import { startPositionSink } from '../processors/vessels/positions-sink.ts';
import { insertPositions } from '../processors/vessels/vessel-store.ts';
import type { VesselPosition } from '../schemas/ais.ts';
import { benchContext } from './support/bench-context.ts';
import { profilePhase } from './support/phase-profile.ts';

const VESSELS = 10_000;
const REPORTS = Number(process.env.PSS_BENCH_REPORTS ?? 30);
const WRITERS = Number(process.env.PSS_BENCH_WRITERS ?? 2);
const CONSUMERS = Number(process.env.PSS_BENCH_CONSUMERS ?? 2);
const DAY = 86_400_000;
/**
 * Today from 00:00 UTC, as live ingest writes: into the current day's partition, which carries no spatial
 * index until the day has ended (migration 0016).
 */
const START = Math.floor(Date.now() / DAY) * DAY;

const log = createLogger(process.env.PSS_BENCH_LOG_LEVEL ?? 'silent');

function report(v: number, r: number): VesselPosition {
  const at = new Date(START + r * 10_000 * 60 + v).toISOString();
  return {
    kind: 'position', msg_type: 1, mmsi: 200_000_000 + v, source: 'bench', reported_at: at, received_at: at, raw: ['!AIVDM,1,1,,A,bench,0*00'],
    lat: 55 + (v % 100) * 0.01 + r * 0.0001, lon: 12 + Math.floor(v / 100) * 0.01 + r * 0.0001, sog: 7.5, cog: 45, heading: 44, nav_status: 0,
  };
}

async function main(): Promise<void> {
  const prefix = `bench-${Date.now().toString(36)}-`;
  const { ctx, close } = await benchContext({ database: 'pss_bench_positions', prefix, log });
  const { pool, producer, topics, codec } = ctx;

  const reports: VesselPosition[] = [];
  for (let r = 0; r < REPORTS; r++) for (let v = 0; v < VESSELS; v++) reports.push(report(v, r));
  let t = performance.now();
  for (let i = 0; i < reports.length; i += 5_000) {
    await producer.send(reports.slice(i, i + 5_000).map((p) => ({ topic: topics.aisPositions, key: String(p.mmsi), value: codec.encode('aisPositions', p) })));
  }
  const produceMs = performance.now() - t;

  // 1. End to end through one sink instance.
  t = performance.now();
  const profiled = await profilePhase();
  const sink = await startPositionSink(ctx, { writers: WRITERS, consumers: CONSUMERS });
  // Steady rate as the other pipeline benchmarks measure it: from the first stored batch to the last row,
  // without the consumers' start and group join.
  let first = { at: 0, stored: 0 };
  await until(async () => {
    const stored = await storedCount();
    if (first.stored === 0 && stored > 0) first = { at: performance.now(), stored };
    return stored >= reports.length;
  }, 600_000);
  const sinkMs = performance.now() - t;
  const steadyMs = performance.now() - first.at;
  await profiled();
  await sink.stop();
  const batches = (await registry.getSingleMetric('pss_vessel_positions_batch_seconds')?.get())?.values.find((v) => (v as { metricName?: string }).metricName === 'pss_vessel_positions_batch_seconds_count')?.value ?? 0;
  const batchSum = (await registry.getSingleMetric('pss_vessel_positions_batch_seconds')?.get())?.values.find((v) => (v as { metricName?: string }).metricName === 'pss_vessel_positions_batch_seconds_sum')?.value ?? 0;
  const { rows: counted } = await pool.query<{ n: string; vessels: string }>('SELECT (SELECT count(*) FROM vessel_positions) AS n, (SELECT count(*) FROM vessels) AS vessels');

  // 2. and 3. The database alone, into a truncated table, then the same rows again.
  await pool.query('TRUNCATE vessel_positions');
  const rows = reports.map(positionRow).filter((r): r is PositionRow => r !== undefined);
  t = performance.now();
  for (let i = 0; i < rows.length; i += 5_000) await insertPositions(pool, rows.slice(i, i + 5_000));
  const dbMs = performance.now() - t;
  t = performance.now();
  let again = 0;
  for (let i = 0; i < rows.length; i += 5_000) again += await insertPositions(pool, rows.slice(i, i + 5_000));
  const rereadMs = performance.now() - t;
  const { rows: size } = await pool.query<{ bytes: string }>(
    "SELECT sum(pg_total_relation_size(inhrelid))::bigint AS bytes FROM pg_inherits WHERE inhparent = 'vessel_positions'::regclass");

  const rate = (n: number, ms: number) => Math.round((n / ms) * 1000).toLocaleString('en');
  console.log(`positions: ${reports.length.toLocaleString('en')} (${VESSELS.toLocaleString('en')} vessels x ${REPORTS}); produced in ${(produceMs / 1000).toFixed(1)} s`);
  console.log(`1. sink end to end (Kafka -> PostGIS, one instance): ${rate(reports.length - first.stored, steadyMs)} positions/s from the first stored batch to the last row (goal >= 50,000); ${(sinkMs / 1000).toFixed(1)} s = ${rate(reports.length, sinkMs)} positions/s with the sink's start; stored ${counted[0]?.n}, vessels ${counted[0]?.vessels}; ${batches} batches of ${Math.round(reports.length / Math.max(1, batches))} on average, ${(batchSum).toFixed(1)} s in the handler`);
  console.log(`2. database alone (insertPositions: binary COPY into the staging table, then INSERT ... ON CONFLICT; batches of 5,000): ${rate(rows.length, dbMs)} positions/s`);
  console.log(`3. re-read of every row (ON CONFLICT DO NOTHING): ${rate(rows.length, rereadMs)} positions/s, ${again} rows added`);
  console.log(`storage: ${Math.round(Number(size[0]?.bytes) / rows.length)} bytes per position with indexes`);

  await close();
}

async function storedCount(): Promise<number> {
  const metric = await registry.getSingleMetric('pss_vessel_positions_stored_total')?.get();
  return metric?.values.reduce((sum, v) => sum + v.value, 0) ?? 0;
}

async function until(what: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await what())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
