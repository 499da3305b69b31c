import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPool, deleteInBatches, inTransaction, type Pool } from '../../../platform/postgres.ts';
import { postgresCheck } from '../../../platform/readiness.ts';
import { startTcpProxy, targetOf, throughProxy, type TcpProxy } from '../../support/tcp-proxy.ts';
import { testConfig, testLog } from '../../support/stack.ts';

// Issue 21, item 4: a connection reset while a client was checked out of the pool (between two statements
// of a transaction, or under one) emitted 'error' on a pg Client with no listener, and the process died.
// In this process that is an uncaught exception, which fails the run. Now the transaction fails, the
// client is dropped, the next transaction gets a new connection and /readyz says what happened.
const REFUSE_MS = 1_000;

describe('a Postgres pool whose connections are reset', () => {
  const databaseUrl = testConfig().databaseUrl;
  let proxy: TcpProxy;
  let pool: Pool;

  beforeAll(async () => {
    proxy = await startTcpProxy(targetOf(databaseUrl));
    pool = createPool(throughProxy(databaseUrl, proxy), 2, testLog, { connectMs: 2_000, statementMs: 10_000 });
    await pool.query('CREATE TABLE IF NOT EXISTS pg_reset_probe (id text PRIMARY KEY)');
  });
  afterEach(async () => {
    // Every test leaves the pool working again.
    await expect.poll(() => pool.query('SELECT 1').then(() => true, () => false), { timeout: 10_000 }).toBe(true);
  });
  afterAll(async () => {
    await pool?.query('DELETE FROM pg_reset_probe WHERE id = ANY($1::text[])', [ids]);
    await proxy?.close();
    await pool?.end();
  });

  const ids: string[] = [];
  const newId = (name: string) => {
    ids.push(`${name}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`);
    return ids[ids.length - 1] as string;
  };
  const stored = async (id: string) => (await pool.query('SELECT 1 FROM pg_reset_probe WHERE id = $1', [id])).rowCount;

  it('makes /readyz name postgres with the lost connection, then pass again', async () => {
    const check = postgresCheck(pool);
    await check();
    await expect(inTransaction(pool, async (client) => {
      proxy.reset(REFUSE_MS);
      await sleep(100);
      await client.query('SELECT 1');
    })).rejects.toThrow();
    await expect(check()).rejects.toThrow(/a connection was lost .* s ago/);
    // Reported for ten seconds after the loss, then Postgres answering is enough again.
    await expect.poll(() => check().then(() => 'ready', (err: Error) => err.message), { timeout: 20_000, interval: 500 }).toBe('ready');
  });

  it('fails a transaction reset between two statements, rolls it back, and the next one works', async () => {
    const id = newId('between');
    const failed = inTransaction(pool, async (client) => {
      await client.query('INSERT INTO pg_reset_probe (id) VALUES ($1)', [id]);
      // Held between statements, as the relay holds its claim while Kafka answers.
      proxy.reset(REFUSE_MS);
      await sleep(100);
      await client.query('SELECT 1');
    });
    await expect(failed).rejects.toMatchObject({ name: 'ConnectionLostError', message: expect.stringMatching(/^postgres: connection lost: /) });
    await expect.poll(() => inTransaction(pool, async (c) => (await c.query('SELECT 2 AS n')).rows).catch(() => undefined), { timeout: 10_000 }).toEqual([{ n: 2 }]);
    expect(await stored(id)).toBe(0);
  });

  it('fails a transaction reset under a statement', async () => {
    const failed = inTransaction(pool, async (client) => {
      setTimeout(() => proxy.reset(REFUSE_MS), 100);
      await client.query('SELECT pg_sleep(2)');
    });
    await expect(failed).rejects.toMatchObject({ name: 'ConnectionLostError' });
  });

  it('fails a transaction reset right after its COMMIT went out, and leaves it committed', async () => {
    const id = newId('commit');
    const fired = proxy.resetAfter('COMMIT', REFUSE_MS);
    // The reset comes once COMMIT is answered: the client may or may not have read the answer.
    const outcome = await inTransaction(pool, (client) => client.query('INSERT INTO pg_reset_probe (id) VALUES ($1)', [id])).then(() => 'ok', (err: Error) => err.name);
    await fired;
    expect(['ok', 'ConnectionLostError']).toContain(outcome);
    await expect.poll(() => stored(id).catch(() => undefined), { timeout: 10_000 }).toBe(1);
  });

  it('fails a retention run reset between two batches, and the next run deletes the rest', async () => {
    const doomed = [newId('expired'), newId('expired'), newId('expired')];
    await pool.query('INSERT INTO pg_reset_probe (id) SELECT unnest($1::text[])', [doomed]);
    const deleted = { n: 0, inc(n: number) { this.n += n; } };
    const expire = () => deleteInBatches(pool, 'DELETE FROM pg_reset_probe WHERE id IN (SELECT id FROM pg_reset_probe WHERE id = ANY($1::text[]) LIMIT $2)', [doomed], 1, deleted);
    const fired = proxy.resetAfter('DELETE FROM pg_reset_probe', REFUSE_MS);
    await expect(expire()).rejects.toThrow();
    await fired;
    expect(deleted.n).toBe(1);
    await expect.poll(() => expire().catch(() => -1), { timeout: 10_000, interval: 250 }).toBe(2);
    expect(deleted.n).toBe(3);
  });

  it('survives the reset of a client held idle outside a transaction, and drops it when released', async () => {
    const client = await pool.connect();
    proxy.reset(REFUSE_MS);
    await sleep(100);
    await expect(client.query('SELECT 1')).rejects.toThrow();
    client.release();
    await expect.poll(() => pool.query('SELECT 3 AS n').then((r) => r.rows, () => undefined), { timeout: 10_000 }).toEqual([{ n: 3 }]);
  });

});
