import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEvent } from '../../../events/queries.ts';
import { storeEvents } from '../../../events/store.ts';
import { createPool, inTransaction, migrate, type Pool } from '../../../platform/postgres.ts';
import type { SecurityEvent } from '../../../schemas/event.ts';
import { testEvent, testModules } from '../../support/security-events.ts';
import { testConfig, testLog } from '../../support/stack.ts';

describe('storing events on the real PostGIS', () => {
  const config = testConfig();
  let pool: Pool;
  const modules = testModules(() => pool);

  beforeAll(async () => {
    await migrate(config.databaseUrl, testLog);
    pool = createPool(config.databaseUrl, 2);
  });
  afterAll(async () => {
    await modules.cleanup();
    await pool.end();
  });

  const pendingOf = async (sourceModule: string) =>
    (await pool.query<{ id: string }>('SELECT event_id AS id FROM event_outbox WHERE source_module = $1 ORDER BY seq', [sourceModule])).rows.map((r) => r.id);
  const store = (events: SecurityEvent[]) => inTransaction(pool, (client) => storeEvents(client, events));

  it('stores each event once with one outbox entry, and a replay stores and queues nothing', async () => {
    const source = modules.next();
    const events = [testEvent(source, 1), testEvent(source, 2)];
    expect((await store(events)).map((e) => e.id)).toEqual(events.map((e) => e.id));
    expect(await pendingOf(source)).toEqual(events.map((e) => e.id));

    // The first went out (the relay forgot its entry); the batch is then replayed with one new event.
    await pool.query('DELETE FROM event_outbox WHERE event_id = $1', [events[0]!.id]);
    const replayed = await store([...events, testEvent(source, 3)]);
    expect(replayed.map((e) => e.id)).toEqual([testEvent(source, 3).id]);
    // The published one is not queued again; the unpublished one stays queued once.
    expect(await pendingOf(source)).toEqual([events[1]!.id, testEvent(source, 3).id]);
    const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM security_events WHERE source_module = $1', [source]);
    expect(rows[0]!.n).toBe(3);
  });

  it('leaves nothing behind when the transaction rolls back', async () => {
    const source = modules.next();
    await expect(
      inTransaction(pool, async (client) => {
        await storeEvents(client, [testEvent(source, 1)]);
        throw new Error('batch failed after storing');
      }),
    ).rejects.toThrow('batch failed after storing');
    expect(await pendingOf(source)).toEqual([]);
    expect(await readEvent(pool, testEvent(source, 1).id)).toBeUndefined();
  });

  it('queues a batch in its own order, whatever the ids, and an id named twice once', async () => {
    const source = modules.next();
    const events = Array.from({ length: 50 }, (_, n) => testEvent(source, n));
    const fresh = await store([...events, events[7]!]);
    expect(fresh.map((e) => e.id)).toEqual(events.map((e) => e.id));
    expect(await pendingOf(source)).toEqual(events.map((e) => e.id));
  });

  it('refuses an event that disagrees with the type table, and stores nothing of its batch', async () => {
    const source = modules.next();
    // A type whose severity is fixed (zone_exit's varies since alert rules set its level).
    const wrong: SecurityEvent = { ...testEvent(source, 2), type: 'speed_anomaly', severity: 'critical' };
    await expect(store([testEvent(source, 1), wrong])).rejects.toThrow(/speed_anomaly events are medium, not critical/);
    await expect(store([{ ...testEvent(source, 3), type: 'vessel_teleported' }])).rejects.toThrow(/unknown event type/);
    await expect(store([{ ...testEvent(source, 4, 'gate'), category: 'perimeter' }])).rejects.toThrow(/in category gate, not perimeter/);
    expect(await pendingOf(source)).toEqual([]);
  });

  it('reads an event merged with what operators changed, and leaves the stored body as found', async () => {
    const source = modules.next();
    const [event] = await store([testEvent(source, 1)]);
    expect(await readEvent(pool, event!.id)).toEqual(event);

    // What the events API's PATCH (issue 10) will write: all three fields as they are now.
    await pool.query(
      `INSERT INTO event_triage (event_id, requires_action, assigned_to, incident_id, updated_by) VALUES ($1, false, 'duty.officer', 'inc_1', 'key_test')`,
      [event!.id],
    );
    expect(await readEvent(pool, event!.id)).toEqual({ ...event, requires_action: false, assigned_to: 'duty.officer', incident_id: 'inc_1' });
    // Unassigning is a change too: a null in the triage row wins over the stored value.
    await pool.query(`UPDATE event_triage SET assigned_to = '', incident_id = NULL WHERE event_id = $1`, [event!.id]);
    expect(await readEvent(pool, event!.id)).toEqual({ ...event, requires_action: false, assigned_to: '', incident_id: null });

    const { rows } = await pool.query<{ body: SecurityEvent; requires_action: boolean }>('SELECT body, requires_action FROM security_events WHERE id = $1', [event!.id]);
    expect(rows[0]).toEqual({ body: event, requires_action: true });
    expect(await readEvent(pool, 'evt_00000000000000000000000000000000')).toBeUndefined();
  });

  it('deleting an event removes its outbox entry and its triage with it', async () => {
    const source = modules.next();
    const [event] = await store([testEvent(source, 1)]);
    await pool.query(`INSERT INTO event_triage (event_id, requires_action, updated_by) VALUES ($1, false, 'key_test')`, [event!.id]);
    await pool.query('DELETE FROM security_events WHERE source_module = $1', [source]);
    expect(await pendingOf(source)).toEqual([]);
    const { rows } = await pool.query('SELECT 1 FROM event_triage WHERE event_id = $1', [event!.id]);
    expect(rows).toEqual([]);
  });
});
