// SQL of the vessel sinks: bulk writes of positions, newest positions and static data, and the day
// partitions of vessel_positions. Positions go by binary COPY; the other statements take whole columns as
// array parameters (unnest), so a batch of thousands of rows is one round trip and one plan, with no value
// ever in the SQL text.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { inTransaction, type Pool, type PoolClient } from '../../platform/postgres.ts';
import { COPY_COLUMNS, positionsCopyBody } from './position-copy.ts';
import type { PositionRow } from './position-rows.ts';
import type { StaticRow } from './static-rows.ts';

type Queryable = Pool | PoolClient;

/**
 * Stores rows not stored before (same vessel, event time and feed); returns how many were new. The rows go by
 * binary COPY into a session-local staging table, then into the partitions with one INSERT ... ON CONFLICT DO
 * NOTHING: COPY cannot skip existing keys itself, and a re-read batch must add nothing. Measured against one
 * INSERT over unnest arrays: 135,000 against 70,000 rows/s (docs/vessels.md "Vessels and positions").
 */
export async function insertPositions(db: Queryable, rows: readonly PositionRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  if (db instanceof pg.Pool) return inTransaction(db, (client) => insertPositions(client, rows));
  const client = db as PoolClient;
  // Created (if missing) on every call: made inside a transaction that then rolled back, it is gone again.
  // Emptied first rather than after: a batch that failed outside a transaction leaves nothing behind.
  await client.query('CREATE TEMP TABLE IF NOT EXISTS pss_positions_stage (LIKE vessel_positions); TRUNCATE pss_positions_stage');
  await pipeline(Readable.from([positionsCopyBody(rows)]), client.query(copyFrom(`COPY pss_positions_stage (${COPY_COLUMNS.join(', ')}) FROM STDIN (FORMAT binary)`)));
  const result = await client.query('INSERT INTO vessel_positions SELECT * FROM pss_positions_stage ON CONFLICT DO NOTHING');
  return result.rowCount ?? 0;
}

/**
 * Moves each vessel's last position forward to `latest` (one row per vessel, sorted by MMSI); an older
 * report (another instance finishing a batch after a rebalance, a late feed) leaves a newer one alone.
 */
export async function updateLastPositions(db: Queryable, latest: readonly PositionRow[]): Promise<void> {
  if (latest.length === 0) return;
  await db.query(
    `INSERT INTO vessels (mmsi, last_position, last_sog, last_cog, last_heading, last_nav_status, last_report_at, last_source)
     SELECT mmsi, ST_SetSRID(ST_MakePoint(lon, lat), 4326)::geography, sog, cog, heading, nav_status, to_timestamp(reported_ms / 1000), source
       FROM unnest($1::int[], $2::float8[], $3::float8[], $4::float8[], $5::real[], $6::real[], $7::int2[], $8::int2[], $9::text[])
            AS u(mmsi, reported_ms, lat, lon, sog, cog, heading, nav_status, source)
     ON CONFLICT (mmsi) DO UPDATE
       SET last_position = EXCLUDED.last_position, last_sog = EXCLUDED.last_sog, last_cog = EXCLUDED.last_cog,
           last_heading = EXCLUDED.last_heading, last_nav_status = EXCLUDED.last_nav_status,
           last_report_at = EXCLUDED.last_report_at, last_source = EXCLUDED.last_source, updated_at = now()
     WHERE vessels.last_report_at IS NULL OR vessels.last_report_at < EXCLUDED.last_report_at`,
    [
      latest.map((r) => r.mmsi), latest.map((r) => r.reportedAt), latest.map((r) => r.lat), latest.map((r) => r.lon),
      latest.map((r) => r.sog), latest.map((r) => r.cog), latest.map((r) => r.heading), latest.map((r) => r.navStatus),
      latest.map((r) => r.source),
    ],
  );
}

// The static columns of `vessels`, with the SQL type of their array parameter.
const STATIC_COLUMNS = [
  ['name', 'text'], ['callsign', 'text'], ['imo', 'int'], ['ship_type', 'int2'], ['category', 'text'],
  ['hazardous_category', 'text'], ['to_bow', 'int2'], ['to_stern', 'int2'], ['to_port', 'int2'],
  ['to_starboard', 'int2'], ['length', 'int2'], ['beam', 'int2'], ['draught', 'real'], ['destination', 'text'],
  ['eta', 'timestamptz'],
] as const;

// A newer report fills a field it has; an older one (a compacted topic replayed, a late feed) only fills
// fields still empty.
const STATIC_UPSERT = `
  INSERT INTO vessels (mmsi, static_reported_at, ${STATIC_COLUMNS.map(([c]) => c).join(', ')})
  SELECT * FROM unnest($1::int[], $2::timestamptz[], ${STATIC_COLUMNS.map(([, t], i) => `$${i + 3}::${t}[]`).join(', ')})
  ON CONFLICT (mmsi) DO UPDATE SET
    ${STATIC_COLUMNS.map(([c]) => `${c} = CASE WHEN newer THEN coalesce(EXCLUDED.${c}, vessels.${c}) ELSE coalesce(vessels.${c}, EXCLUDED.${c}) END`).join(',\n    ')},
    static_reported_at = greatest(vessels.static_reported_at, EXCLUDED.static_reported_at),
    updated_at = now()`.replaceAll('newer', '(vessels.static_reported_at IS NULL OR vessels.static_reported_at <= EXCLUDED.static_reported_at)');

/** Merges one row per vessel (sorted by MMSI, see staticRows) into `vessels`. */
export async function upsertStatic(db: Queryable, rows: readonly StaticRow[]): Promise<void> {
  if (rows.length === 0) return;
  const column = (field: string) => rows.map((r) => (r as unknown as Record<string, unknown>)[field === 'category' ? 'ship_category' : field] ?? null);
  await db.query(STATIC_UPSERT, [
    rows.map((r) => r.mmsi),
    rows.map((r) => new Date(r.reportedAt).toISOString()),
    ...STATIC_COLUMNS.map(([c]) => column(c)),
  ]);
}

/** Name and category of every vessel with static data: what the zone processors' vessel directory holds. */
export async function readVesselDirectory(db: Queryable): Promise<{ mmsi: number; name: string | null; category: string | null }[]> {
  const { rows } = await db.query<{ mmsi: number; name: string | null; category: string | null }>(
    'SELECT mmsi, name, category FROM vessels WHERE static_reported_at IS NOT NULL AND (name IS NOT NULL OR category IS NOT NULL)',
  );
  return rows;
}

/** Creates the day partitions of `days` (YYYY-MM-DD) that do not exist yet; returns the days created. */
export async function createPartitions(db: Queryable, days: readonly string[]): Promise<string[]> {
  const created: string[] = [];
  // One statement per day: each CREATE is its own short transaction holding the parent's lock briefly.
  for (const day of days) {
    const { rows } = await db.query<{ created: boolean }>('SELECT vessel_positions_create_partition($1::date) AS created', [day]);
    if (rows[0]?.created) created.push(day);
  }
  return created;
}

/** Drops every day partition before `keepFrom` (YYYY-MM-DD); returns the tables dropped. */
export async function dropPartitionsBefore(db: Queryable, keepFrom: string): Promise<string[]> {
  const { rows } = await db.query<{ part: string }>('SELECT vessel_positions_drop_before($1::date) AS part', [keepFrom]);
  return rows.map((r) => r.part);
}

/** The UTC days that have a partition now. */
export async function partitionDays(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ day: string }>(
    `SELECT to_char(to_date(substr(c.relname, 18), 'YYYYMMDD'), 'YYYY-MM-DD') AS day
       FROM pg_inherits AS i JOIN pg_class AS c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'vessel_positions'::regclass AND c.relname ~ '^vessel_positions_\\d{8}$'
      ORDER BY 1`,
  );
  return rows.map((r) => r.day);
}

/** Day partitions before `today` (YYYY-MM-DD) that have no valid GiST index on position yet, oldest first. */
export async function partitionsToIndex(db: Queryable, today: string): Promise<string[]> {
  const { rows } = await db.query<{ part: string }>(
    `SELECT c.relname AS part
       FROM pg_inherits AS i JOIN pg_class AS c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'vessel_positions'::regclass AND c.relname ~ '^vessel_positions_\\d{8}$'
        AND to_date(substr(c.relname, 18), 'YYYYMMDD') < $1::date
        AND NOT EXISTS (SELECT 1 FROM pg_index AS x JOIN pg_class AS ic ON ic.oid = x.indexrelid
                         WHERE x.indrelid = c.oid AND x.indisvalid AND ic.relname = c.relname || '_position_gist')
      ORDER BY c.relname`,
    [today],
  );
  return rows.map((r) => r.part);
}

/**
 * Builds the GiST index on position of one day partition without blocking its writers, then vacuums it. A build left
 * invalid (an instance stopped mid-way, or another instance building the same one) is dropped first.
 * `part` comes from the catalog (partitionsToIndex), never from input.
 */
export async function indexPartition(pool: Pool, part: string): Promise<void> {
  const index = pg.escapeIdentifier(`${part}_position_gist`);
  await pool.query(`DROP INDEX CONCURRENTLY IF EXISTS ${index}`);
  await pool.query(`CREATE INDEX CONCURRENTLY ${index} ON ${pg.escapeIdentifier(part)} USING gist (position)`);
  // The closed day gets its BRIN ranges summarized, its visibility map set and its statistics now,
  // rather than whenever autovacuum comes by.
  await pool.query(`VACUUM (ANALYZE) ${pg.escapeIdentifier(part)}`);
}
