// Incidents query benchmark (issue 23, "Done means"): GET /v1/incidents over 100,000 stored incidents (90
// days of a busy port, about 1,100 a day), through the real service: authentication, validation, the page
// and count queries, JSON. For each typical filter (none, status, severity, vessel, zone by name and by id,
// gate, container, plate, a date range, page 50, the severity sort, the operators' "open and serious" view)
// it sends one request at a time with values drawn from the corpus and reports p50 / p95 / max.
// Goal: p95 <= 50 ms each. The list has no default time window (an old incident may still be open), so
// every case runs over the whole 90 days.
// The corpus is generated in SQL with the mix grouping produces (incidents/grouping.ts): vessel incidents
// (MMSI and a zone, some joined by a gate event on a container booked for the vessel), container, plate,
// gate, zone and device incidents; severities low 30 %, medium 35 %, high 25 %, critical 10 %; recent
// incidents often open or acknowledged, older ones nearly all resolved. incident_events and
// incident_changes are left empty: the list reads neither.
// Run: npm run bench incidents-query   (PSS_BENCH_INCIDENTS=N for another corpus size; PSS_BENCH_INCIDENTS_KEEP=1
// keeps the database, PSS_BENCH_INCIDENTS_REUSE=1 uses a kept one holding as many incidents)
import { createHash } from 'node:crypto';
import { loadavg } from 'node:os';
import pg from 'pg';
import { createApiKey } from '../api/auth/api-keys.ts';
import { authFeature, incidentsFeature } from '../app/features.ts';
import { startService } from '../app/service.ts';
import { loadConfig } from '../app/config.ts';
import { KafkaAdmin } from '../platform/kafka/index.ts';
import { createLogger } from '../platform/log.ts';
import { migrate } from '../platform/postgres.ts';
import { topicSpecs } from '../platform/topics.ts';
import { BENCH_ADMIN_URL, dropBenchDatabase, freshBenchDatabase } from './support/bench-database.ts';
import { CORPUS } from './support/event-corpus.ts';
import { measureListQuery, type ListQueryCase, type ListQueryResult } from './support/list-query.ts';

const INCIDENTS = Number(process.env.PSS_BENCH_INCIDENTS ?? 100_000);
const DAYS = 90;
const QUERIES = Number(process.env.PSS_BENCH_QUERIES ?? 150);
const WARMUP = 15;
const GOAL_P95_MS = 50;
const DATABASE = 'pss_bench_incidents';
const VESSELS = 3_000;
const GATES = 8;
const OWNERS = ['MSCU', 'MAEU', 'CSQU', 'HLXU', 'TGHU', 'CMAU', 'OOLU', 'EGHU', 'TCNU', 'FSCU'];

const log = createLogger(process.env.PSS_BENCH_LOG_LEVEL ?? 'silent');
const brokers = process.env.PSS_KAFKA_BROKERS ?? '127.0.0.1:9092';

let seed = 23;
const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
const md5 = (text: string) => createHash('md5').update(text).digest('hex');

/** Values present in the corpus (read once it is loaded), so the entity filters find something. */
const drawn = { mmsi: [] as string[], container: [] as string[], plate: [] as string[] };

function window(days: number): Record<string, string> {
  const end = Date.now() - random() * (DAYS - days) * 86_400_000;
  return { start_date: new Date(end - days * 86_400_000).toISOString(), end_date: new Date(end).toISOString() };
}

const CASES: ListQueryCase[] = [
  { name: 'no filter (opened_at)', query: () => ({}) },
  { name: 'status=open', query: () => ({ status: 'open' }) },
  { name: 'status=open,acknowledged', query: () => ({ status: 'open,acknowledged' }) },
  { name: 'status=resolved', query: () => ({ status: 'resolved' }) },
  { name: 'severity=critical', query: () => ({ severity: 'critical' }) },
  { name: 'severity=high,critical', query: () => ({ severity: 'high,critical' }) },
  { name: 'mmsi', query: () => ({ mmsi: pick(drawn.mmsi) }) },
  { name: 'zone (name)', query: () => ({ zone: random() < 0.8 ? pick(CORPUS.zones) : pick(CORPUS.sectors) }) },
  { name: 'zone (id)', query: () => ({ zone: `zone_${md5(pick(CORPUS.zones))}` }) },
  { name: 'gate', query: () => ({ gate: `gate-${Math.floor(random() * GATES)}` }) },
  { name: 'container', query: () => ({ container: pick(drawn.container) }) },
  { name: 'plate', query: () => ({ plate: pick(drawn.plate) }) },
  { name: 'start_date/end_date (24 h)', query: () => window(1) },
  { name: 'start_date/end_date (7 days)', query: () => window(7) },
  { name: 'page 50', query: () => ({ page: '50' }) },
  { name: 'sort=severity', query: () => ({ sort: 'severity' }) },
  { name: 'open + high,critical, sort=severity', query: () => ({ status: 'open,acknowledged', severity: 'high,critical', sort: 'severity' }) },
  { name: 'zone + status=open', query: () => ({ zone: pick(CORPUS.zones), status: 'open' }) },
];

async function main(): Promise<void> {
  const databaseUrl = (await reusable()) ?? (await loaded());
  const prefix = `bench-incidents-${Date.now().toString(36)}-`;
  const config = loadConfig({
    PSS_DATABASE_URL: databaseUrl, PSS_KAFKA_BROKERS: brokers, PSS_TOPIC_PREFIX: prefix, PSS_LOG_LEVEL: 'silent', PSS_HTTP_PORT: '0',
    PSS_RATE_LIMIT_BURST: '1000000', PSS_RATE_LIMIT_PER_SECOND: '100000',
  });
  const service = await startService(config, ['api'], log, [authFeature, incidentsFeature]);
  const { pool } = service.context;
  const { key } = await createApiKey(pool, config.environment, { name: 'bench', scopes: ['events:read'] }, 'bench');
  const sample = async (column: string) => (await pool.query<{ v: string }>(`SELECT DISTINCT ${column}::text AS v FROM incidents TABLESAMPLE SYSTEM (10) WHERE ${column} IS NOT NULL LIMIT 500`)).rows.map((r) => r.v);
  drawn.mmsi = await sample('mmsi');
  drawn.container = await sample('container_id');
  drawn.plate = await sample('plate');
  const results: ListQueryResult[] = [];
  const run = { url: service.url as string, key, path: '/v1/incidents', warmup: WARMUP, queries: QUERIES };
  const loadBefore = loadavg();
  try {
    for (const c of CASES) results.push(await measureListQuery(run, c, `${DAYS} days`, c.query));
  } finally {
    await service.stop();
    const admin = new KafkaAdmin({ brokers: config.kafkaBrokers, clientId: 'pss-bench', log });
    await admin.deleteTopics(topicSpecs(prefix).map((t) => t.name)).catch(() => undefined);
    await admin.close();
    if (process.env.PSS_BENCH_INCIDENTS_KEEP !== '1') await dropDatabase();
  }
  const loadAfter = loadavg();
  console.log(`\n${INCIDENTS.toLocaleString('en')} incidents over ${DAYS} days; ${QUERIES} requests per case, one at a time; goal p95 <= ${GOAL_P95_MS} ms; ` +
    `load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')} before, ${loadAfter.map((l) => l.toFixed(2)).join(' ')} after\n`);
  console.table(results.map((r) => ({ ...r, goal: r.p95_ms <= GOAL_P95_MS ? 'met' : 'MISSED' })));
  console.log(JSON.stringify({ incidents: INCIDENTS, days: DAYS, queries_per_case: QUERIES, load_before: loadBefore, load_after: loadAfter, results }));
}

/**
 * The corpus, generated in SQL one chunk at a time in opening order (as grouping inserts incidents, so the
 * table's physical order follows opened_at). `kind` picks what grouping keyed the incident on, and with it
 * the subject columns it fills; status follows the incident's age.
 */
const INSERT_CHUNK = `
WITH g AS (
  SELECT n, random() AS k, random() AS s, random() AS st, now() - (($9::int - n + random()) / $9::int * $3::int * interval '1 day') AS opened,
         219000000 + floor(power(random(), 2) * $4::int)::int AS mmsi,
         ($6::text[])[1 + floor(random() * array_length($6::text[], 1))::int] AS zone_name,
         ($7::text[])[1 + floor(random() * array_length($7::text[], 1))::int] AS sector,
         'gate-' || floor(random() * $5::int)::int AS gate,
         ($8::text[])[1 + floor(random() * array_length($8::text[], 1))::int] || lpad(floor(random() * 10000000)::int::text, 7, '0') AS container,
         'P' || lpad(floor(random() * 20000)::int::text, 5, '0') AS plate,
         interval '1 minute' * floor(random() * 120) AS span,
         1 + floor(power(random(), 3) * 40)::int AS events
    FROM generate_series($1::int, $2::int) AS n
), k AS (
  SELECT *, CASE WHEN k < 0.45 THEN 'vessel' WHEN k < 0.50 THEN 'fusion' WHEN k < 0.65 THEN 'container' WHEN k < 0.72 THEN 'plate'
                 WHEN k < 0.80 THEN 'gate' WHEN k < 0.92 THEN 'zone' ELSE 'device' END AS kind,
            CASE WHEN s < 0.30 THEN 'low' WHEN s < 0.65 THEN 'medium' WHEN s < 0.90 THEN 'high' ELSE 'critical' END AS severity,
            CASE WHEN opened > now() - interval '1 day' THEN (CASE WHEN st < 0.35 THEN 'open' WHEN st < 0.60 THEN 'acknowledged' ELSE 'resolved' END)
                 WHEN opened > now() - interval '7 days' THEN (CASE WHEN st < 0.05 THEN 'open' WHEN st < 0.15 THEN 'acknowledged' ELSE 'resolved' END)
                 ELSE (CASE WHEN st < 0.005 THEN 'open' WHEN st < 0.015 THEN 'acknowledged' ELSE 'resolved' END) END AS status
    FROM g
), v AS (
  SELECT *,
         CASE kind WHEN 'vessel' THEN 'vessel:' || mmsi WHEN 'fusion' THEN 'vessel:' || mmsi WHEN 'container' THEN 'container:' || container
                   WHEN 'plate' THEN 'plate:' || plate WHEN 'gate' THEN 'gate:' || gate WHEN 'zone' THEN 'zone:' || lower(sector)
                   ELSE 'device:perimeter.cameras/cam-' || (n % 90) END AS key,
         CASE WHEN kind IN ('vessel', 'fusion') THEN mmsi END AS s_mmsi,
         CASE WHEN kind = 'vessel' AND random() < 0.8 THEN zone_name WHEN kind = 'zone' THEN sector END AS s_zone,
         CASE WHEN kind IN ('fusion', 'container', 'plate', 'gate') THEN gate END AS s_gate,
         CASE WHEN kind IN ('fusion', 'container') THEN container END AS s_container,
         CASE WHEN kind = 'plate' THEN plate END AS s_plate,
         opened + span AS last_at,
         CASE WHEN status <> 'open' OR random() < 0.3 THEN opened + random() * interval '30 minutes' END AS ack_at
    FROM k
)
INSERT INTO incidents (id, key, reason, status, severity, title, mmsi, zone, zone_id, gate_id, container_id, plate, location,
                       opening_event_id, event_count, first_event_at, last_event_at, opened_at, acknowledged_at, acknowledged_by,
                       resolved_at, resolved_by, resolution_reason, assigned_to, escalation_step, next_escalation_at, reopen_count,
                       notes, merged_into, revision, updated_at)
SELECT 'inc_' || md5('bench-incident-' || n), key, kind || ' named by the opening event', status, severity,
       CASE kind WHEN 'vessel' THEN 'Vessel ' || mmsi || ' entered ' || coalesce(s_zone, 'a restricted zone') WHEN 'fusion' THEN 'Seal violation on ' || container || ' booked on ' || mmsi
                 WHEN 'container' THEN 'Seal violation on ' || container WHEN 'plate' THEN 'Rejected truck ' || plate WHEN 'gate' THEN 'Gate ' || gate || ' anomaly'
                 WHEN 'zone' THEN 'Perimeter breach at ' || sector ELSE 'Camera cam-' || (n % 90) || ' offline' END,
       s_mmsi, s_zone, CASE WHEN s_zone IS NOT NULL AND kind = 'vessel' THEN 'zone_' || md5(s_zone) END, s_gate, s_container, s_plate,
       jsonb_build_object('lat', 55.6 + random() * 0.1, 'lng', 12.5 + random() * 0.2) || CASE WHEN s_zone IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('zone', s_zone) END,
       'evt_bench_' || n, events, opened, last_at, opened,
       CASE WHEN status <> 'open' THEN ack_at END, CASE WHEN status <> 'open' THEN 'operator_' || (n % 20) END,
       CASE WHEN status = 'resolved' THEN last_at + random() * interval '4 hours' END, CASE WHEN status = 'resolved' THEN 'operator_' || (n % 20) END,
       CASE WHEN status = 'resolved' THEN 'Checked on site; no further action' END,
       CASE WHEN random() < 0.5 THEN 'operator_' || (n % 20) ELSE '' END,
       CASE WHEN status = 'open' AND severity <> 'low' AND random() < 0.5 THEN 1 ELSE 0 END,
       CASE WHEN status = 'open' AND severity <> 'low' THEN opened + interval '10 minutes' END,
       CASE WHEN random() < 0.03 THEN 1 ELSE 0 END,
       '[]'::jsonb, NULL, 1 + events + CASE WHEN status = 'resolved' THEN 2 WHEN status = 'acknowledged' THEN 1 ELSE 0 END,
       CASE WHEN status = 'resolved' THEN last_at + interval '4 hours' ELSE last_at END
  FROM v`;

async function loaded(): Promise<string> {
  const url = await freshBenchDatabase(DATABASE);
  await migrate(url, log);
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  const t = performance.now();
  console.log(`loading ${INCIDENTS.toLocaleString('en')} incidents over ${DAYS} days into ${DATABASE}`);
  try {
    const chunk = 50_000;
    for (let from = 1; from <= INCIDENTS; from += chunk) {
      await db.query(INSERT_CHUNK, [from, Math.min(INCIDENTS, from + chunk - 1), DAYS, VESSELS, GATES, CORPUS.zones, CORPUS.sectors, OWNERS, INCIDENTS]);
    }
    await db.query('VACUUM ANALYZE incidents');
    const { rows } = await db.query<{ size: string; open: string }>(
      `SELECT pg_size_pretty(pg_total_relation_size('incidents')) AS size, count(*) FILTER (WHERE status = 'open') AS open FROM incidents`,
    );
    console.log(`loaded in ${((performance.now() - t) / 1000).toFixed(0)} s; ${rows[0]?.open} open; incidents with its indexes: ${rows[0]?.size}`);
  } finally {
    await db.end();
  }
  return url;
}

/** The kept database, when reuse is asked for and it holds the corpus. */
async function reusable(): Promise<string | undefined> {
  if (process.env.PSS_BENCH_INCIDENTS_REUSE !== '1') return undefined;
  const url = new URL(BENCH_ADMIN_URL);
  url.pathname = `/${DATABASE}`;
  const db = new pg.Client({ connectionString: url.toString() });
  try {
    await db.connect();
    const { rows } = await db.query<{ n: string }>(`SELECT count(*) AS n FROM incidents WHERE opening_event_id LIKE 'evt_bench_%'`);
    if (Number(rows[0]?.n) !== INCIDENTS) return undefined;
    await migrate(url.toString(), log); // a migration added since it was kept
    console.log(`reusing the corpus in ${DATABASE}`);
    return url.toString();
  } catch {
    return undefined;
  } finally {
    await db.end().catch(() => undefined);
  }
}

function dropDatabase(): Promise<void> {
  return dropBenchDatabase(DATABASE);
}

await main();
process.exit(0);
