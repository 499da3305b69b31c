// Issue 10, item 1: events stored longer ago than PSS_EVENT_RETENTION_DAYS are deleted in batches, with
// their outbox entry, triage and change history; younger ones stay, and 0 days keeps everything.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteExpiredEvents, startEventRetention } from '../../../events/retention.ts';
import { storeEvents } from '../../../events/store.ts';
import { changeEvent } from '../../../events/triage.ts';
import { createPool, inTransaction, migrate, type Pool } from '../../../platform/postgres.ts';
import { testEvent, testModules } from '../../support/security-events.ts';
import { testConfig, testLog } from '../../support/stack.ts';

describe('event retention on the real PostGIS', () => {
  const config = testConfig();
  let pool: Pool;
  const modules = testModules(() => pool);

  beforeAll(async () => {
    await migrate(config.databaseUrl, testLog);
    pool = createPool(config.databaseUrl, 3);
  });
  afterAll(async () => {
    await modules.cleanup();
    await pool.end();
  });

  /** Stores n events of a fresh module, the first `old` of them stored `ageDays` ago, with a change each. */
  async function storeAged(n: number, old: number, ageDays: number): Promise<string> {
    const module = modules.next('retention');
    const events = Array.from({ length: n }, (_, i) => testEvent(module, i));
    await inTransaction(pool, (client) => storeEvents(client, events));
    for (const e of events) await changeEvent(pool, e.id, { assigned_to: 'duty.officer' }, { credentialId: 'key_test', principal: 'test', kind: 'api_key' });
    await pool.query(`UPDATE security_events SET created_at = now() - make_interval(days => $2) WHERE id = ANY($1::text[])`, [events.slice(0, old).map((e) => e.id), ageDays]);
    return module;
  }
  const count = async (table: string, module: string) =>
    (await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} AS x JOIN security_events AS e ON e.id = x.${table === 'security_events' ? 'id' : 'event_id'} WHERE e.source_module = $1`, [module])).rows[0]!.n;
  const orphans = async (table: string) =>
    (await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} AS x WHERE NOT EXISTS (SELECT 1 FROM security_events AS e WHERE e.id = x.event_id)`)).rows[0]!.n;

  it('deletes what was stored before the retention period in batches, with its outbox entry, triage and history', async () => {
    const module = await storeAged(12, 7, 400);
    expect(await deleteExpiredEvents(pool, 365, 3)).toBe(7);
    expect(await count('security_events', module)).toBe(5);
    expect(await count('event_triage', module)).toBe(5);
    expect(await count('event_changes', module)).toBe(5);
    for (const table of ['event_outbox', 'event_triage', 'event_changes']) expect(await orphans(table), table).toBe(0);
    expect(await deleteExpiredEvents(pool, 365)).toBe(0);
  });

  it('counts from when an event was stored, not from its event time', async () => {
    // testEvent times are in November 2026; stored now, they are young whatever the clock says.
    const module = await storeAged(3, 0, 0);
    expect(await deleteExpiredEvents(pool, 1)).toBe(0);
    expect(await count('security_events', module)).toBe(3);
  });

  it('runs at start on an api instance, and keeps everything with 0 days', async () => {
    const module = await storeAged(4, 2, 40);
    const kept = startEventRetention({ pool, log: testLog, config: { eventRetentionDays: 0 } });
    await kept.stop();
    expect(await count('security_events', module)).toBe(4);
    const job = startEventRetention({ pool, log: testLog, config: { eventRetentionDays: 30 } });
    await job.stop();
    expect(await count('security_events', module)).toBe(2);
  });
});
