// Analyst queries benchmark (issue 13, goal: each <= 500 ms): the five example queries of docs/analysts.md
// (sql/analyst/examples.sql) over 10,000,000 stored positions, 2,000 vessels over ten days, with 100,000
// zone events, timed as the pss_analyst role sees them, each backed by its EXPLAIN ANALYZE.
// Positions are generated in SQL (INSERT ... SELECT from generate_series, one day at a time in time
// order, as the sink writes), not through Kafka; then maintenance builds each closed day's GiST index.
// Takes several minutes: runnable by name only (npm run bench analyst-queries).
// PSS_BENCH_POSITIONS scales the positions (default 10,000,000).
import pg from 'pg';
import { eventId } from '../events/event-id.ts';
import { storeEvents } from '../events/store.ts';
import { createLogger } from '../platform/log.ts';
import { createPool, inTransaction, migrate } from '../platform/postgres.ts';
import { ZoneStore } from '../processors/maritime/zones/zone-store.ts';
import { analystExamples } from '../processors/vessels/analyst-examples.ts';
import { maintainPartitions } from '../processors/vessels/partitions.ts';
import { createPartitions } from '../processors/vessels/vessel-store.ts';
import type { SecurityEvent } from '../schemas/event.ts';
import type { ZoneCreate } from '../schemas/zone.ts';
import { freshBenchDatabase } from './support/bench-database.ts';

const POSITIONS = Number(process.env.PSS_BENCH_POSITIONS ?? 10_000_000);
const VESSELS = 2_000;
const DAYS = 10;
/** The examples ask about 20 November 2026 and 1-13 November: the data covers 11-20 November. */
const FIRST_DAY = Date.parse('2026-11-11T00:00:00Z');
const EVENTS = 100_000;
const RUNS = 5;
const DAY = 86_400_000;

const log = createLogger(process.env.PSS_BENCH_LOG_LEVEL ?? 'silent');

const ZONES: ZoneCreate[] = [
  { name: 'Approach channel', active: true, type: 'monitoring', alert_level: 'low', geometry: { type: 'Corridor', centerline: [[12.5, 55.6], [12.9, 55.65]], width_meters: 400 } },
  { name: 'North anchorage', active: true, type: 'anchorage', alert_level: 'info', geometry: { type: 'Circle', center: [12.65, 55.72], radius_meters: 1500 } },
  { name: 'Berth 7', active: true, type: 'restricted', alert_level: 'high', geometry: { type: 'Polygon', coordinates: [[[12.799, 55.649], [12.801, 55.649], [12.801, 55.651], [12.799, 55.651], [12.799, 55.649]]] } },
];

async function main(): Promise<void> {
  const databaseUrl = await freshBenchDatabase('pss_bench_analyst');
  await migrate(databaseUrl, log);
  const pool = createPool(databaseUrl, 4, log, { connectMs: 10_000, statementMs: 3_600_000 });
  const zones = [];
  for (const zone of ZONES) zones.push(await new ZoneStore(pool).create(zone));

  // Positions: each vessel wanders the port area (12.5-12.9 E, 55.5-55.8 N) on its own slow curve.
  const perVessel = Math.ceil(POSITIONS / VESSELS);
  const stepMs = (DAYS * DAY) / perVessel;
  await createPartitions(pool, Array.from({ length: DAYS }, (_, d) => new Date(FIRST_DAY + d * DAY).toISOString().slice(0, 10)));
  let t = performance.now();
  const perDay = Math.ceil(perVessel / DAYS);
  for (let d = 0; d < DAYS; d++) {
    await pool.query(
      `INSERT INTO vessel_positions (mmsi, reported_at, source, position, sog, cog, heading, nav_status, msg_type, received_at)
       SELECT 230000000 + v, to_timestamp(($1::float8 + r * $2::float8 + v * 7) / 1000), 'bench',
              ST_SetSRID(ST_MakePoint(12.5 + 0.4 * ((v * 0.618034 + r * 0.00021) - floor(v * 0.618034 + r * 0.00021)),
                                      55.5 + 0.3 * (0.5 + 0.5 * sin(v * 1.3 + r * 0.0011))), 4326)::geography,
              (r % 150) / 10.0, (r * 7 + v) % 360, (r * 7 + v) % 360, CASE WHEN r % 9 = 0 THEN 1 ELSE 0 END, 1,
              to_timestamp(($1::float8 + r * $2::float8 + v * 7) / 1000)
         FROM generate_series($3::int, $4::int) AS r, generate_series(0, $5::int - 1) AS v`,
      [FIRST_DAY, stepMs, d * perDay, Math.min(perVessel, (d + 1) * perDay) - 1, VESSELS],
    );
  }
  const loadMs = performance.now() - t;
  t = performance.now();
  await maintainPartitions(pool, FIRST_DAY + DAYS * DAY + 3_600_000, { retentionDays: 3_650, ahead: 1 }, log);
  await pool.query('ANALYZE');
  const indexMs = performance.now() - t;
  const { rows: counted } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM vessel_positions');

  // Vessels: names, and last positions within the past 3 days (some inside the anchorage).
  await pool.query(
    `INSERT INTO vessels (mmsi, name, category, last_position, last_report_at, last_source)
     SELECT 230000000 + v, 'BENCH VESSEL ' || v, CASE WHEN v % 3 = 0 THEN 'cargo' ELSE 'tanker' END,
            ST_SetSRID(ST_MakePoint(12.62 + (v % 60) * 0.001, 55.70 + (v % 40) * 0.001), 4326)::geography,
            now() - (v % 4320) * interval '1 minute', 'bench'
       FROM generate_series(0, $1::int - 1) AS v`,
    [VESSELS],
  );

  // Events: stays at the three zones, half in 1-20 November, half in the past ten days.
  t = performance.now();
  const now = Date.now();
  for (let i = 0; i < EVENTS; i += 2_000) {
    const batch: SecurityEvent[] = [];
    for (let k = i; k < Math.min(EVENTS, i + 2_000); k += 2) {
      const zone = zones[k % zones.length]!;
      const entered = k % 4 === 0 ? Date.parse('2026-11-01T00:00:00Z') + ((k * 7_919) % (20 * DAY)) : now - ((k * 7_919) % (10 * DAY));
      const exited = Math.min(now, entered + ((k * 31) % 600) * 60_000);
      batch.push(stayEvent('zone_entry', 230000000 + (k % VESSELS), zone, entered, entered), stayEvent('zone_exit', 230000000 + (k % VESSELS), zone, exited, entered));
    }
    await inTransaction(pool, (client) => storeEvents(client, batch));
  }
  await pool.query('DELETE FROM event_outbox');
  await pool.query('ANALYZE');
  const eventsMs = performance.now() - t;

  console.log(`data: ${Number(counted[0]?.n).toLocaleString('en')} positions (${VESSELS} vessels, ${DAYS} days) loaded in ${(loadMs / 1000).toFixed(0)} s, day GiST indexes built in ${(indexMs / 1000).toFixed(0)} s; ${EVENTS.toLocaleString('en')} events in ${(eventsMs / 1000).toFixed(0)} s`);

  // As the analyst role (its login set directly here; the service sets it from PSS_ANALYST_PASSWORD).
  await pool.query(`SELECT pss_set_analyst_login($1)`, ['SCRAM-SHA-256$4096:+QPZrSOYStybqFlp3xnckg==$UMaPjXkkgZsUCx8Lf9hqmVfPebdd4qqkgguihVOSAaU=:CEieeRehAiVEC6g743E9KY06R1txKT/OOProsxeneJc=']);
  const url = new URL(databaseUrl);
  url.username = 'pss_analyst';
  url.password = 'correct horse battery';
  const analyst = new pg.Client({ connectionString: url.toString() });
  await analyst.connect();
  for (const example of analystExamples()) {
    const { rows: plan } = await analyst.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${example.sql}`);
    const lines = plan.map((r) => r['QUERY PLAN']);
    const times: number[] = [];
    let rowCount = 0;
    for (let run = 0; run < RUNS; run++) {
      const started = performance.now();
      rowCount = (await analyst.query(example.sql)).rowCount ?? 0;
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(RUNS / 2)]!;
    const executed = lines.find((l) => l.startsWith('Execution Time'));
    const indexes = [...new Set(lines.flatMap((l) => [...l.matchAll(/(?:Index(?: Only)? Scan using|Bitmap Index Scan on) (\S+)/g)].map((m) => m[1])))];
    const scanned = [...new Set(lines.flatMap((l) => [...l.matchAll(/Seq Scan on (\S+)/g)].map((m) => m[1])))];
    console.log(`${example.name}: median ${median.toFixed(0)} ms of ${RUNS} (max ${times[RUNS - 1]!.toFixed(0)} ms), ${rowCount} rows; EXPLAIN ANALYZE ${executed?.replace('Execution Time: ', '')} ${median <= 500 ? '(goal met)' : '(over the 500 ms goal)'}`);
    console.log(`    indexes: ${indexes.join(', ') || 'none'}; sequential scans: ${scanned.join(', ') || 'none'}`);
    if (process.env.PSS_BENCH_PLANS) console.log(lines.map((l) => `      ${l}`).join('\n'));
  }
  await analyst.end();
  await pool.end();
}

function stayEvent(type: 'zone_entry' | 'zone_exit', mmsi: number, zone: { id: string; name: string; type: string }, at: number, enteredAt: number): SecurityEvent {
  const severity = type === 'zone_entry' && mmsi % 5 === 0 ? 'high' : 'low';
  return {
    id: eventId(`${type}:${zone.id}:${mmsi}:${new Date(enteredAt).toISOString()}`), type, timestamp: new Date(at).toISOString(), category: 'maritime', severity,
    source_module: 'maritime.zones', source_device: 'bench', title: `${type} ${mmsi}`, description: '', location: { lat: 55.7, lng: 12.65, zone: zone.name },
    metadata: {
      mmsi, vessel_name: `BENCH VESSEL ${mmsi - 230000000}`, zone_id: zone.id, zone_name: zone.name, zone_type: zone.type, entered_at: new Date(enteredAt).toISOString(),
      dwell_minutes: Math.floor((at - enteredAt) / 60_000), alerting: severity !== 'low', authorized: false, ...(type === 'zone_exit' ? { exit_reason: 'left' } : {}),
    },
    requires_action: severity !== 'low', assigned_to: '', incident_id: null,
  };
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
