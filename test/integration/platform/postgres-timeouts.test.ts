import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { withDeadline } from '../../../platform/deadline.ts';
import { createPool, inTransaction, type Pool } from '../../../platform/postgres.ts';
import { startTcpProxy, targetOf, throughProxy, type TcpProxy } from '../../support/tcp-proxy.ts';
import { testConfig, testLog } from '../../support/stack.ts';

// Issue 8, defect 8: with no statement or query timeout, a half-open Postgres connection held its
// caller for the whole outage. The pool now gives up on a connection that does not answer, and drops it.
const TIMEOUTS = { connectMs: 500, statementMs: 500 };
/** Time allowed for a failure that the timeouts above should produce within about 1.5 s. */
const PROMPTLY_MS = 4_000;

describe('a Postgres pool whose connection stops answering', () => {
  const databaseUrl = testConfig().databaseUrl;
  let proxy: TcpProxy;
  let pool: Pool;

  beforeAll(async () => {
    proxy = await startTcpProxy(targetOf(databaseUrl));
    // One connection: the same one is handed out again unless a failure drops it.
    pool = createPool(throughProxy(databaseUrl, proxy), 1, testLog, TIMEOUTS);
  });
  afterEach(() => proxy.thaw());
  afterAll(async () => {
    await proxy?.close();
    await pool?.end();
  });

  const answer = async () => (await withDeadline(pool.query<{ n: number }>('SELECT 1 AS n'), PROMPTLY_MS)).rows;

  it('sets the statement and idle-in-transaction timeouts on every session', async () => {
    const { rows } = await pool.query<{ statement: string; idle: string }>(
      "SELECT current_setting('statement_timeout') AS statement, current_setting('idle_in_transaction_session_timeout') AS idle",
    );
    expect(rows).toEqual([{ statement: '500ms', idle: '1s' }]);
  });

  it('fails a query within the timeout instead of hanging, and the next query gets a working connection', async () => {
    expect(await answer()).toEqual([{ n: 1 }]);
    proxy.freeze();
    await expect(withDeadline(pool.query('SELECT 1'), PROMPTLY_MS)).rejects.toThrow('Query read timeout');
    proxy.thaw();
    expect(await answer()).toEqual([{ n: 1 }]);
  });

  it('fails a transaction within the timeout and does not hand its dead connection out again', async () => {
    expect(await answer()).toEqual([{ n: 1 }]);
    proxy.freeze();
    await expect(withDeadline(inTransaction(pool, (c) => c.query('SELECT 1')), PROMPTLY_MS)).rejects.toThrow('Query read timeout');
    proxy.thaw();
    const { rows } = await withDeadline(inTransaction(pool, (c) => c.query<{ n: number }>('SELECT 2 AS n')), PROMPTLY_MS);
    expect(rows).toEqual([{ n: 2 }]);
  });

  it('gives up connecting when the server does not answer', async () => {
    await pool.query('SELECT 1');
    proxy.freeze();
    // The frozen idle connection times out first and is dropped; the next one cannot be opened.
    await expect(withDeadline(pool.query('SELECT 1'), PROMPTLY_MS)).rejects.toThrow('Query read timeout');
    await expect(withDeadline(pool.query('SELECT 1'), PROMPTLY_MS)).rejects.toThrow(/connection timeout/);
  });

  it('lets the server cancel a statement that runs too long (SQLSTATE 57014)', async () => {
    await expect(withDeadline(pool.query('SELECT pg_sleep(3)'), 2_000)).rejects.toMatchObject({ code: '57014' });
    expect(await answer()).toEqual([{ n: 1 }]);
  });
});
