import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, inTransaction, type Pool } from '../../../platform/postgres.ts';
import { testConfig, testLog, unique } from '../../support/stack.ts';

// A transaction that Postgres rolls back for a deadlock is run again when its caller opted in
// (retryConflicts), and fails with 40P01 otherwise: the drone abort answered 500 on such a deadlock
// (docs/drones.md), and any route that takes two rows can meet one.
describe('inTransaction and deadlocks', () => {
  const databaseUrl = testConfig().databaseUrl;
  const table = pg.escapeIdentifier(unique('conflict_rows').replace(/[^a-z0-9_]/gi, '_'));
  let pool: Pool;
  let other: pg.Client;

  beforeAll(async () => {
    pool = createPool(databaseUrl, 2, testLog);
    other = new pg.Client({ connectionString: databaseUrl });
    await other.connect();
    await pool.query(`CREATE TABLE ${table} (id int PRIMARY KEY, n int NOT NULL DEFAULT 0)`);
    await pool.query(`INSERT INTO ${table} (id) VALUES (1), (2)`);
  });
  afterAll(async () => {
    await pool?.query(`DROP TABLE IF EXISTS ${table}`);
    await other?.end();
    await pool?.end();
  });

  /**
   * Our transaction takes row 1, then waits for row 2, which the other session holds; the other session
   * then asks for row 1. Ours checks for deadlocks first (300 ms against the other's default 1 s), so it
   * is the one Postgres rolls back; the other then gets row 1 and commits.
   */
  async function meetDeadlock(retryConflicts: boolean): Promise<{ outcome: unknown; attempts: number }> {
    await other.query('BEGIN');
    await other.query(`SELECT id FROM ${table} WHERE id = 2 FOR UPDATE`);
    let attempts = 0;
    let holdsRow1!: () => void;
    const firstHold = new Promise<void>((resolve) => (holdsRow1 = resolve));
    const ours = inTransaction(pool, async (client) => {
      attempts++;
      await client.query("SET LOCAL deadlock_timeout = '300ms'");
      await client.query(`UPDATE ${table} SET n = n + 1 WHERE id = 1`);
      holdsRow1();
      await client.query(`UPDATE ${table} SET n = n + 1 WHERE id = 2`);
      return attempts;
    }, { retryConflicts }).then((v) => v, (err: unknown) => err);
    await firstHold;
    await new Promise((r) => setTimeout(r, 50)); // ours is now waiting for row 2
    await other.query(`UPDATE ${table} SET n = n + 100 WHERE id = 1`); // returns once ours was rolled back
    await other.query('COMMIT');
    return { outcome: await ours, attempts };
  }

  const counts = async () => (await pool.query<{ id: number; n: number }>(`SELECT id, n FROM ${table} ORDER BY id`)).rows.map((r) => r.n);

  it('without retryConflicts the deadlock reaches the caller (40P01) and nothing of it is written', async () => {
    const before = await counts();
    const { outcome, attempts } = await meetDeadlock(false);
    expect((outcome as { code?: string }).code).toBe('40P01');
    expect(attempts).toBe(1);
    expect(await counts()).toEqual([before[0]! + 100, before[1]]);
  });

  it('with retryConflicts it runs again after the other transaction and commits once', async () => {
    const before = await counts();
    const { outcome, attempts } = await meetDeadlock(true);
    expect(outcome).toBe(2);
    expect(attempts).toBe(2);
    expect(await counts()).toEqual([before[0]! + 101, before[1]! + 1]);
  });
});
