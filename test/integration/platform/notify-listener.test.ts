// The shared LISTEN helper on the real Postgres: a NOTIFY reaches its callback, a second ensure() keeps the
// one connection, a connection terminated by the server is dropped and ensure() listens again on a new
// one (true: read what was missed), and a channel that is not a plain identifier is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotifyListener } from '../../../platform/notify-listener.ts';
import { createPool, type Pool } from '../../../platform/postgres.ts';
import { testConfig, testLog, unique } from '../../support/stack.ts';

describe('NotifyListener', () => {
  let pool: Pool;
  beforeAll(() => {
    pool = createPool(testConfig().databaseUrl, 3, testLog);
  });
  afterAll(async () => {
    await pool?.end();
  });

  it('delivers notifications, and listens again after its connection is terminated', async () => {
    const channel = unique('pss_test_listen').replace(/[^a-z0-9_]/g, '_');
    let notified = 0;
    const listener = new NotifyListener({ pool, channel, log: testLog, what: 'test listener', onNotify: () => notified++ });
    try {
      expect(await listener.ensure()).toBe(true);
      expect(await listener.ensure()).toBe(false);
      await pool.query('SELECT pg_notify($1, $2)', [channel, '']);
      await expect.poll(() => notified, { timeout: 5_000 }).toBe(1);

      await pool.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = $1`, [`LISTEN ${channel}`]);
      await expect.poll(() => listener.listening, { timeout: 5_000 }).toBe(false);
      expect(await listener.ensure()).toBe(true);
      await pool.query('SELECT pg_notify($1, $2)', [channel, '']);
      await expect.poll(() => notified, { timeout: 5_000 }).toBe(2);
    } finally {
      await listener.stop();
    }
    expect(listener.listening).toBe(false);
  });

  it('refuses a channel that is not a plain identifier', () => {
    expect(() => new NotifyListener({ pool, channel: 'x; DROP TABLE zones', log: testLog, what: 'bad', onNotify: () => undefined })).toThrow(/not a channel name/);
  });
});
