import pg from 'pg';
import { runner } from 'node-pg-migrate';
import { fileURLToPath } from 'node:url';
import type { Logger } from './log.ts';

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

const MIGRATIONS_DIR = fileURLToPath(new URL('../sql/migrations', import.meta.url));

export function createPool(databaseUrl: string, max: number, log?: Logger): pg.Pool {
  const pool = new pg.Pool({ connectionString: databaseUrl, max, connectionTimeoutMillis: 5_000, idleTimeoutMillis: 30_000 });
  // An idle client losing its connection (Postgres restart) must not crash the process; the pool replaces it.
  pool.on('error', (err) => log?.warn({ err }, 'idle postgres connection failed'));
  return pool;
}

/** Applies every pending migration in sql/migrations. Concurrent callers wait on node-pg-migrate's advisory lock. */
export async function migrate(databaseUrl: string, log: Logger): Promise<string[]> {
  const applied = await runner({
    databaseUrl,
    dir: MIGRATIONS_DIR,
    direction: 'up',
    migrationsTable: 'pgmigrations',
    checkOrder: true,
    advisoryLockMode: 'wait',
    log: (msg: string) => log.debug(msg),
  });
  return applied.map((m) => m.name);
}

/** Runs fn in a transaction, rolling back on error. */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
