// Benchmarks that need PostGIS get a database of their own, dropped and created afresh on each run.
import pg from 'pg';

/** Where benchmarks create their databases (PSS_BENCH_ADMIN_URL overrides). */
export const BENCH_ADMIN_URL = process.env.PSS_BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Drops database `name` (and the connections still on it) if it exists. */
export async function dropBenchDatabase(name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: BENCH_ADMIN_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
  await admin.end();
}

/** Drops and creates database `name` with PostGIS; returns its URL. */
export async function freshBenchDatabase(name: string): Promise<string> {
  await dropBenchDatabase(name);
  const admin = new pg.Client({ connectionString: BENCH_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
  await admin.end();
  const url = new URL(BENCH_ADMIN_URL);
  url.pathname = `/${name}`;
  const db = new pg.Client({ connectionString: url.toString() });
  await db.connect();
  await db.query('CREATE EXTENSION IF NOT EXISTS postgis');
  await db.end();
  return url.toString();
}
