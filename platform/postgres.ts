import pg from 'pg';
import { runner } from 'node-pg-migrate';
import { fileURLToPath } from 'node:url';
import type { Logger } from './log.ts';
import { counter } from './metrics.ts';

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

const MIGRATIONS_DIR = fileURLToPath(new URL('../sql/migrations', import.meta.url));

export interface PostgresTimeouts {
  /** Opening a connection, or waiting for a free one of the pool. */
  connectMs: number;
  /** The server cancels a statement running longer (statement_timeout, SQLSTATE 57014). */
  statementMs: number;
}

export const DEFAULT_TIMEOUTS: PostgresTimeouts = { connectMs: 5_000, statementMs: 30_000 };

/**
 * The client gives up on a query this long after the server should have cancelled it: only a
 * connection that does not answer at all (half-open) gets there, and it is then dropped.
 */
const NO_ANSWER_MARGIN_MS = 1_000;

// pg reports its own timeouts without a code; these are its messages (pg 8, pg-pool 3).
const NO_ANSWER = 'Query read timeout';
const CONNECT_TIMEOUTS = ['timeout exceeded when trying to connect', 'Connection terminated due to connection timeout'];
const STATEMENT_TIMEOUT = '57014';

const timeouts = counter('pss_postgres_timeouts_total', 'Postgres queries that timed out, by kind (no_answer: the connection did not answer and was dropped; statement: cancelled by statement_timeout)', ['kind']);

/** A query or connection attempt that ran out of time: a stalled or overloaded Postgres, not a bad query. */
export function isPostgresTimeout(err: unknown): boolean {
  const e = err as { message?: unknown; code?: unknown } | null | undefined;
  return e?.code === STATEMENT_TIMEOUT || e?.message === NO_ANSWER || CONNECT_TIMEOUTS.includes(String(e?.message));
}

/** When a query of each pool last timed out, for /readyz (platform/readiness.ts). */
const lastTimeout = new WeakMap<pg.Pool, { at: number; message: string; windowMs: number }>();

/**
 * A query of this pool that timed out recently (within two query timeouts), described; undefined when
 * none did. A caller retrying through a stall keeps it reported between its attempts.
 */
export function recentTimeout(pool: pg.Pool, now = Date.now()): string | undefined {
  const last = lastTimeout.get(pool);
  if (!last || now - last.at > last.windowMs) return undefined;
  return `a query timed out ${((now - last.at) / 1000).toFixed(1)} s ago: ${last.message}`;
}

export function createPool(databaseUrl: string, max: number, log?: Logger, limits: PostgresTimeouts = DEFAULT_TIMEOUTS): pg.Pool {
  const noAnswerMs = limits.statementMs + NO_ANSWER_MARGIN_MS;
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max,
    connectionTimeoutMillis: limits.connectMs,
    idleTimeoutMillis: 30_000,
    statement_timeout: limits.statementMs,
    query_timeout: noAnswerMs,
    // A transaction left open by a caller that stopped (or whose connection froze) releases its locks.
    idle_in_transaction_session_timeout: 2 * limits.statementMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  });
  // An idle client losing its connection (Postgres restart) must not crash the process; the pool replaces it.
  pool.on('error', (err) => log?.warn({ err }, 'idle postgres connection failed'));
  // A client released with an error is dropped; pool.query and inTransaction release that way on a timeout.
  pool.on('release', (err: Error | undefined) => {
    if (!err || !isPostgresTimeout(err)) return;
    timeouts.inc({ kind: err.message === NO_ANSWER ? 'no_answer' : 'statement' });
    lastTimeout.set(pool, { at: Date.now(), message: err.message, windowMs: 2 * noAnswerMs });
  });
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

/**
 * Runs fn in a transaction, rolling back on error. After a timeout the connection is dropped instead:
 * one that did not answer would not answer the ROLLBACK either (the server ends the transaction when
 * the connection closes, or after idle_in_transaction_session_timeout).
 */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    client.release();
    return result;
  } catch (err) {
    const broken = isPostgresTimeout(err) ? err : await client.query('ROLLBACK').then(() => undefined, (rollbackErr: unknown) => rollbackErr);
    client.release(broken === undefined ? undefined : (broken as Error));
    throw err;
  }
}

/**
 * Runs `sql`, a DELETE of at most `batchSize` rows (its last parameter), until a run deletes fewer: a
 * retention job that never holds many locks or runs one long statement. Each batch is counted in
 * `deleted` as it commits; returns how many rows it deleted in all.
 */
export async function deleteInBatches(pool: pg.Pool, sql: string, params: unknown[], batchSize: number, deleted: { inc(n: number): void }): Promise<number> {
  let total = 0;
  for (;;) {
    const n = (await pool.query(sql, [...params, batchSize])).rowCount ?? 0;
    deleted.inc(n);
    total += n;
    if (n < batchSize) return total;
  }
}
