import pg from 'pg';
import { runner } from 'node-pg-migrate';
import { fileURLToPath } from 'node:url';
import { DependencyError } from './errors.ts';
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

const timeouts = counter('pss_postgres_timeouts_total', 'Postgres queries that timed out, by kind (no_answer: the connection did not answer and was dropped; statement: cancelled by statement_timeout)', ['kind'], { kind: ['no_answer', 'statement'] });
const conflictRetried = counter('pss_postgres_conflict_retries_total', 'Transactions run again after Postgres rolled them back for a deadlock or serialization failure (callers that opted in)');
const lostConnections = counter('pss_postgres_connections_lost_total', 'Postgres connections that failed while open (reset, closed by the server), idle or in use');

/** A lost connection is reported by /readyz this long: past a holder's retry, not for minutes after a blip. */
const LOST_REPORTED_MS = 10_000;

/** A query or connection attempt that ran out of time: a stalled or overloaded Postgres, not a bad query. */
export function isPostgresTimeout(err: unknown): boolean {
  const e = err as { message?: unknown; code?: unknown } | null | undefined;
  return e?.code === STATEMENT_TIMEOUT || e?.message === NO_ANSWER || CONNECT_TIMEOUTS.includes(String(e?.message));
}

interface Failure {
  at: number;
  message: string;
  windowMs: number;
}

/** When a query of each pool last timed out, and when one of its connections was last lost, for /readyz (platform/readiness.ts). */
const lastFailures = new WeakMap<pg.Pool, { timeout?: Failure; lost?: Failure }>();

function noteFailure(pool: pg.Pool, kind: 'timeout' | 'lost', message: string, windowMs: number): void {
  lastFailures.set(pool, { ...lastFailures.get(pool), [kind]: { at: Date.now(), message, windowMs } });
}

/**
 * What went wrong with this pool's connections lately, described; undefined when nothing did: a query
 * that timed out within two query timeouts (a caller retrying through a stall keeps it reported between
 * its attempts), a connection lost within LOST_REPORTED_MS.
 */
export function recentFailure(pool: pg.Pool, now = Date.now()): string | undefined {
  const { timeout, lost } = lastFailures.get(pool) ?? {};
  const recent = (f: Failure | undefined) => f !== undefined && now - f.at <= f.windowMs;
  const ago = (f: Failure) => `${((now - f.at) / 1000).toFixed(1)} s ago: ${f.message}`;
  const said = [recent(timeout) && `a query timed out ${ago(timeout as Failure)}`, recent(lost) && `a connection was lost ${ago(lost as Failure)}`].filter(Boolean);
  return said.length === 0 ? undefined : said.join('; ');
}

// pg's words for a connection that failed under a query or a holder (pg 8); a reset carries its errno instead.
const LOST_MESSAGES = ['Connection terminated unexpectedly', 'Client has encountered a connection error and is not queryable'];
const LOST_CODES = ['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', '57P01', '57P02', '57P03'];

/** A failure of the connection itself (reset, refused, closed by the server), not of the query: a retry on another connection may work. */
export function isConnectionLoss(err: unknown): boolean {
  const e = err as { message?: unknown; code?: unknown } | null | undefined;
  return err instanceof ConnectionLostError || LOST_CODES.includes(String(e?.code)) || LOST_MESSAGES.includes(String(e?.message));
}

/** A transaction's connection failed while it was held: its fate is unknown to the holder, who retries. */
class ConnectionLostError extends DependencyError {
  constructor(cause: Error) {
    super('postgres', `connection lost: ${cause.message}`, { cause });
    this.name = 'ConnectionLostError';
  }
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
  // Every client has an error listener for its whole life. pg-pool listens only while a client is idle,
  // and a pg Client emitting 'error' with no listener ends the process: a connection reset while a holder
  // had its client checked out (between two statements of a transaction, while the relay waited for Kafka)
  // did (issue 21, item 4). pg marks such a client unqueryable, so its holder's next query fails, and
  // pg-pool drops it when it comes back.
  pool.on('connect', (client) => {
    client.on('error', (err) => {
      lostConnections.inc();
      noteFailure(pool, 'lost', err.message, LOST_REPORTED_MS);
      log?.warn({ err }, 'postgres connection lost');
    });
  });
  // pg-pool passes an idle client's failure on to the pool; the client's own listener reported it.
  pool.on('error', () => undefined);
  // A client released with an error is dropped; pool.query and inTransaction release that way on a timeout.
  pool.on('release', (err: Error | undefined) => {
    if (!err || !isPostgresTimeout(err)) return;
    timeouts.inc({ kind: err.message === NO_ANSWER ? 'no_answer' : 'statement' });
    noteFailure(pool, 'timeout', err.message, 2 * noAnswerMs);
  });
  return pool;
}

/** A client checked out of the pool (`checkOut`): it knows when its connection failed while held. */
export interface HeldClient {
  readonly client: pg.PoolClient;
  /** How its connection failed while held; undefined while it works. */
  readonly lost: Error | undefined;
  /** Back to the pool, or dropped when its connection failed or `err` is given. Later calls do nothing. */
  release(err?: Error): void;
}

/**
 * The one way to hold a pooled client across awaits: until it is released, a failure of its connection is
 * kept in `lost` (and `onLost` is told, for holders that wait rather than query, as a LISTEN does); the
 * holder's next query fails, and release drops the client instead of handing it out again.
 */
export async function checkOut(pool: pg.Pool, onLost?: (err: Error) => void): Promise<HeldClient> {
  const client = await pool.connect();
  let lost: Error | undefined;
  let released = false;
  const listener = (err: Error) => {
    if (lost !== undefined) return;
    lost = err;
    onLost?.(err);
  };
  client.on('error', listener);
  return {
    client,
    get lost() {
      return lost;
    },
    release(err?: Error) {
      if (released) return;
      released = true;
      client.removeListener('error', listener);
      client.release(err ?? lost);
    },
  };
}

/**
 * A client of its own, outside any pool (migrations, one-off set-up), with an error listener for its life:
 * a lost connection fails the query in flight and the next one, never the process.
 */
export async function connectClient(databaseUrl: string, log?: Logger): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on('error', (err) => log?.warn({ err }, 'postgres connection lost'));
  await client.connect();
  return client;
}

/** Applies every pending migration in sql/migrations. Concurrent callers wait on node-pg-migrate's advisory lock. */
export async function migrate(databaseUrl: string, log: Logger): Promise<string[]> {
  // Our own client rather than the runner's, which has no error listener.
  const dbClient = await connectClient(databaseUrl, log);
  try {
    const applied = await runner({
      dbClient,
      dir: MIGRATIONS_DIR,
      direction: 'up',
      migrationsTable: 'pgmigrations',
      checkOrder: true,
      advisoryLockMode: 'wait',
      log: (msg: string) => log.debug(msg),
    });
    return applied.map((m) => m.name);
  } finally {
    await dbClient.end().catch(() => undefined);
  }
}

/**
 * Runs fn in a transaction, rolling back on error. After a timeout the connection is dropped instead:
 * one that did not answer would not answer the ROLLBACK either (the server ends the transaction when
 * the connection closes, or after idle_in_transaction_session_timeout). A connection lost meanwhile
 * (reset, closed by the server) fails it with ConnectionLostError: the server rolled back, unless the
 * COMMIT got there first, so what the caller retries must be safe to do twice.
 */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>, opts: TransactionOptions = {}): Promise<T> {
  const retries = opts.retryConflicts ? CONFLICT_RETRIES : 0;
  for (let attempt = 0; ; attempt++) {
    try {
      return await runTransaction(pool, fn);
    } catch (err) {
      if (attempt >= retries || !isTransactionConflict(err)) throw err;
      conflictRetried.inc();
      await new Promise((resolve) => setTimeout(resolve, conflictBackoffMs(attempt, Math.random())));
    }
  }
}

export interface TransactionOptions {
  /**
   * Run fn again, in a new transaction, up to CONFLICT_RETRIES times when Postgres rolled it back for a
   * deadlock or a serialization failure (the other party's transaction then goes through, so a second try
   * usually succeeds). Only for fn whose whole effect is in the transaction: nothing kept in memory, sent or
   * counted between attempts. Default false.
   */
  retryConflicts?: boolean;
}

/** A conflict that survives three reruns is no passing race. */
const CONFLICT_RETRIES = 3;

/** Deadlock detected (40P01) or serialization failure (40001): the server rolled back, a rerun may succeed. */
export function isTransactionConflict(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '40P01' || code === '40001';
}

/** The pause before rerun `attempt` (0-based): 10-50 ms, then more, jittered so two losers do not meet again. */
export function conflictBackoffMs(attempt: number, random: number): number {
  return Math.round((10 + 40 * random) * 2 ** Math.min(attempt, 4));
}

async function runTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const held = await checkOut(pool);
  const { client } = held;
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    held.release();
    return result;
  } catch (err) {
    if (held.lost !== undefined) {
      held.release();
      throw new ConnectionLostError(held.lost);
    }
    const broken = isPostgresTimeout(err) ? err : await client.query('ROLLBACK').then(() => undefined, (rollbackErr: unknown) => rollbackErr);
    held.release(broken === undefined ? undefined : (broken as Error));
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
