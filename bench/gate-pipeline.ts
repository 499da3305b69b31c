// Gate pipeline benchmark (issue 11): one gate processor instance on the real broker and PostGIS.
//   1. throughput: readings per second from a preloaded gate.readings topic to stored transactions (Kafka
//      consume, appointment look-up, scoring and decision, transaction + audit chain + events in one
//      Postgres transaction per batch); goal >= 5,000/s;
//   2. latency: reading -> decision at a steady 1,000 readings per second, as the service measures it
//      (processing_time_ms: from ingest's received_at to the stored decision), p50 / p99.
// A realistic mix: 80% clean trucks, the rest with a broken seal, another container, damage, a failed
// check digit or no appointment. Run: npm run bench gate-pipeline (PSS_BENCH_GATE_READINGS=N to change 100,000)
import { findingsOf } from '../ingest/gate/readings.ts';
import { createLogger } from '../platform/log.ts';
import { startGateProcessor } from '../processors/gate/gate-processor.ts';
import { upsertAppointments } from '../processors/gate/store.ts';
import { checkDigit } from '../ingest/gate/iso6346.ts';
import type { GateAppointment } from '../schemas/gate-appointment.ts';
import type { GateReading, GateReadingRecord } from '../schemas/gate-reading.ts';
import { benchContext } from './support/bench-context.ts';
import { profilePhase } from './support/phase-profile.ts';

const READINGS = Number(process.env.PSS_BENCH_GATE_READINGS ?? 100_000);
const APPOINTMENTS = 20_000;
const STEADY_RATE = 1_000;
const STEADY_SECONDS = 15;
const GOAL_PER_SECOND = 5_000;

const log = createLogger(process.env.PSS_BENCH_LOG_LEVEL ?? 'silent');

const containerOf = (n: number) => {
  const ten = `BNCU${String(n % 1_000_000).padStart(6, '0')}`;
  return `${ten}${checkDigit(ten)}`;
};

function appointment(n: number): GateAppointment {
  return { appointment_id: `apt-${n}`, plate: `P${n}`, carrier: 'Bench Haulage', container_id: containerOf(n), iso_type: '45G1', seal_number: `SL-${n}`, weight_declared_kg: 21_400 };
}

function readingOf(i: number, prefix: string): GateReadingRecord {
  const n = i % APPOINTMENTS;
  const kind = i % 20; // 0-15 clean, 16 seal, 17 container, 18 damage, 19 check digit / no appointment
  const id = kind === 17 ? containerOf(n + 500_000) : kind === 19 ? `${containerOf(n).slice(0, 10)}${(Number(containerOf(n)[10]) + 1) % 10}` : containerOf(n);
  const now = new Date().toISOString();
  const r: GateReading = {
    reading_id: `${prefix}-${i}`, gate: `gate-${i % 8}`, lane: `lane-${i % 4}`, captured_at: now,
    vehicle: { plate: `P${n}`, plate_confidence: 0.96, plate_image_url: `https://cams.example/p/${i}.jpg`, type: 'truck', carrier: 'Bench Haulage', driver_id: `drv-${n}`, appointment_id: i % 40 === 39 ? `apt-missing-${i}` : `apt-${n}` },
    container: {
      id, ocr_confidence: 0.94, ocr_image_url: `https://cams.example/o/${i}.jpg`, iso_type: '45G1', size: '40ft', weight_declared_kg: 21_400, weight_estimated_kg: 21_650,
      seal: { number: `SL-${n}`, status: kind === 16 ? 'broken' : 'intact', confidence: 0.9, seal_image_url: `https://cams.example/s/${i}.jpg` },
    },
    inspection: {
      damage_regions: kind === 18 ? [{ type: 'dent', area: 'roof', severity: 'medium', confidence: 0.8 }] : [],
      images: [{ type: 'front', url: `https://cams.example/f/${i}.jpg`, captured_at: now }],
    },
  };
  return { ...r, source: 'bench', received_at: now, findings: findingsOf(r) };
}

async function main(): Promise<void> {
  const prefix = `bench-gatep-${Date.now().toString(36)}-`;
  // Bookings are loaded straight into Postgres, not through gate.appointments: auto would see no booking feed.
  const gateSettings = { PSS_GATE_APPOINTMENTS: 'required', ...Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[0].startsWith('PSS_GATE_') && e[1] !== undefined)) };
  const { ctx, close } = await benchContext({ database: 'pss_bench_gate_pipeline', prefix, log, settings: gateSettings, startRelay: true });
  const { config, pool, producer, topics, codec } = ctx;

  for (let i = 0; i < APPOINTMENTS; i += 5_000) await upsertAppointments(pool, Array.from({ length: 5_000 }, (_, k) => appointment(i + k)));

  // 1. Throughput from a preloaded topic.
  let t = performance.now();
  for (let i = 0; i < READINGS; i += 5_000) {
    const batch = Array.from({ length: Math.min(5_000, READINGS - i) }, (_, k) => readingOf(i + k, 'tp'));
    await producer.send(batch.map((r) => ({ topic: topics.gateReadings, key: r.gate, value: codec.encode('gateReadings', r) })));
  }
  console.log(`produced ${READINGS.toLocaleString('en')} readings in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  const profiled = await profilePhase();
  const processor = await startGateProcessor(ctx);
  const firstAt = await untilStored(1);
  const lastAt = await untilStored(READINGS);
  await profiled();
  const throughput = READINGS / ((lastAt - firstAt) / 1000);
  console.log(`throughput: ${Math.round(throughput).toLocaleString('en')} readings/s`);

  // 2. Latency at a steady rate.
  const steadyStart = performance.now();
  const perSlice = STEADY_RATE / 10;
  let sent = 0;
  for (let slice = 0; slice < STEADY_SECONDS * 10; slice++) {
    const wait = steadyStart + slice * 100 - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const batch = Array.from({ length: perSlice }, (_, k) => readingOf(sent + k, 'st'));
    sent += perSlice;
    void producer.send(batch.map((r) => ({ topic: topics.gateReadings, key: r.gate, value: codec.encode('gateReadings', r) })));
  }
  await untilStored(READINGS + sent);
  const { rows } = await pool.query<{ p50: number; p99: number; max: number }>(
    `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY (body->>'processing_time_ms')::int) AS p50,
            percentile_cont(0.99) WITHIN GROUP (ORDER BY (body->>'processing_time_ms')::int) AS p99,
            max((body->>'processing_time_ms')::int) AS max
       FROM gate_transactions WHERE reading_id LIKE 'st-%'`,
  );
  const mix = await pool.query<{ status: string; n: string }>(`SELECT status, count(*) AS n FROM gate_transactions GROUP BY status ORDER BY status`);
  t = performance.now();
  await processor.stop();
  await close();
  const report = {
    readings: READINGS,
    consumers: config.gateProcessorConsumers,
    throughput_per_second: Math.round(throughput),
    goal_per_second: GOAL_PER_SECOND,
    goal: throughput >= GOAL_PER_SECOND ? 'met' : 'MISSED',
    steady_rate_per_second: STEADY_RATE,
    reading_to_decision_ms_p50: Math.round(rows[0]!.p50),
    reading_to_decision_ms_p99: Math.round(rows[0]!.p99),
    reading_to_decision_ms_max: rows[0]!.max,
    statuses: Object.fromEntries(mix.rows.map((r) => [r.status, Number(r.n)])),
  };
  console.log(JSON.stringify(report, null, 2));

  async function untilStored(n: number): Promise<number> {
    for (;;) {
      const { rows: c } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM gate_transactions');
      if (Number(c[0]!.n) >= n) return performance.now();
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

await main();
process.exit(0);
