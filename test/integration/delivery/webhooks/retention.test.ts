// The webhook delivery history does not grow without bound: finished deliveries unchanged for
// PSS_WEBHOOK_HISTORY_RETENTION_DAYS are deleted with their attempts, in batches; pending deliveries
// (still owed to their endpoint) and younger ones stay; 0 days keeps everything.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueDeliveries } from '../../../../delivery/webhooks/queue.ts';
import { deleteExpiredDeliveries, startDeliveryRetention } from '../../../../delivery/webhooks/retention.ts';
import { SecretBox } from '../../../../delivery/webhooks/secret-box.ts';
import { createWebhook } from '../../../../delivery/webhooks/store.ts';
import { createPool, migrate, type Pool } from '../../../../platform/postgres.ts';
import { testEvent } from '../../../support/security-events.ts';
import { testConfig, testLog, unique } from '../../../support/stack.ts';

describe('webhook history retention on the real PostGIS', () => {
  const config = testConfig();
  const hooks: string[] = [];
  let pool: Pool;

  beforeAll(async () => {
    await migrate(config.databaseUrl, testLog);
    pool = createPool(config.databaseUrl, 3);
  });
  afterAll(async () => {
    await pool?.query('DELETE FROM webhooks WHERE id = ANY($1)', [hooks]);
    await pool?.end();
  });

  /** A webhook with one delivery per entry of `ages`: [status, days since its last change], each with an attempt. */
  async function history(ages: [string, number][]): Promise<string> {
    const hook = await createWebhook(pool, new SecretBox(''), { name: unique('retention'), url: 'https://hooks.example.com/retention', events: ['*'], secret: 'whsec_retention_test_0123456789' });
    hooks.push(hook.id);
    const module = `webhooks.${hook.id}`;
    await enqueueDeliveries(pool, ages.map((_, i) => ({ webhookId: hook.id, event: testEvent(module, i) })), Date.now());
    const { rows } = await pool.query<{ id: string }>('SELECT id FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY event_id', [hook.id]);
    for (const [i, { id }] of rows.entries()) {
      const [status, days] = ages[i]!;
      await pool.query(`INSERT INTO webhook_attempts (delivery_id, attempt, webhook_id, attempted_at, response_time_ms) VALUES ($1, 1, $2, now() - make_interval(days => $3), 12)`, [id, hook.id, days]);
      await pool.query(`UPDATE webhook_deliveries SET status = $2, updated_at = now() - make_interval(days => $3) WHERE id = $1`, [id, status, days]);
    }
    return hook.id;
  }
  const left = async (webhookId: string) =>
    (await pool.query<{ status: string; attempts: number }>(
      `SELECT d.status, (SELECT count(*)::int FROM webhook_attempts a WHERE a.delivery_id = d.id) AS attempts
         FROM webhook_deliveries d WHERE d.webhook_id = $1 ORDER BY d.event_id`,
      [webhookId],
    )).rows.map((r) => [r.status, r.attempts]);

  it('deletes finished deliveries past the period with their attempts, in batches, and keeps pending and younger ones', async () => {
    const id = await history([['delivered', 40], ['failed', 31], ['cancelled', 45], ['pending', 90], ['delivered', 29], ['failed', 2]]);
    expect(await deleteExpiredDeliveries(pool, 30, 2)).toBeGreaterThanOrEqual(3);
    expect(await left(id)).toEqual([['pending', 1], ['delivered', 1], ['failed', 1]]);
    const orphans = await pool.query('SELECT 1 FROM webhook_attempts a WHERE a.webhook_id = $1 AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.id = a.delivery_id)', [id]);
    expect(orphans.rowCount).toBe(0);
    expect(await deleteExpiredDeliveries(pool, 30)).toBe(0);
  });

  it('runs at start on an api instance, and keeps everything with 0 days', async () => {
    const id = await history([['delivered', 40], ['delivered', 1]]);
    await startDeliveryRetention({ pool, log: testLog, config: { webhookHistoryRetentionDays: 0 } }).stop();
    expect(await left(id)).toEqual([['delivered', 1], ['delivered', 1]]);
    await startDeliveryRetention({ pool, log: testLog, config: { webhookHistoryRetentionDays: 30 } }).stop();
    expect(await left(id)).toEqual([['delivered', 1]]);
  });
});
