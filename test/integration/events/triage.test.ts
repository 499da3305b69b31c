// Issue 10, item 2: operator changes one at a time per event, each kept with its before and after, and
// queued for publication as an update unless the event is still waiting to go out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeEvents } from '../../../events/store.ts';
import { changeEvent, type Operator } from '../../../events/triage.ts';
import { createPool, inTransaction, migrate, type Pool } from '../../../platform/postgres.ts';
import { testEvent, testModules } from '../../support/security-events.ts';
import { testConfig, testLog } from '../../support/stack.ts';

const OFFICER: Operator = { credentialId: 'tok_1', principal: 'duty.officer', kind: 'oauth' };

describe('operator changes on the real PostGIS', () => {
  const config = testConfig();
  let pool: Pool;
  const modules = testModules(() => pool);

  beforeAll(async () => {
    await migrate(config.databaseUrl, testLog);
    pool = createPool(config.databaseUrl, 12);
  });
  afterAll(async () => {
    await modules.cleanup();
    await pool.end();
  });

  const outboxOf = async (id: string) => (await pool.query('SELECT change FROM event_outbox WHERE event_id = $1', [id])).rows;

  it('makes concurrent changes of one event one after another, each before the previous after', async () => {
    const event = testEvent(modules.next(), 1);
    await inTransaction(pool, (client) => storeEvents(client, [event]));
    const changes = await Promise.all(Array.from({ length: 10 }, (_, i) => changeEvent(pool, event.id, { assigned_to: `officer ${i}` }, OFFICER)));
    expect(changes.map((c) => c!.revision).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const { rows } = await pool.query('SELECT revision, before, after, principal, auth_kind FROM event_changes WHERE event_id = $1 ORDER BY revision', [event.id]);
    expect(rows).toHaveLength(10);
    expect(rows[0].before).toEqual({ requires_action: true, assigned_to: '', incident_id: null });
    for (let i = 1; i < rows.length; i++) expect(rows[i].before).toEqual(rows[i - 1].after);
    expect(rows[0]).toMatchObject({ principal: 'duty.officer', auth_kind: 'oauth' });
    const triage = await pool.query('SELECT revision, updated_by, assigned_to FROM event_triage WHERE event_id = $1', [event.id]);
    expect(triage.rows).toEqual([{ revision: 10, updated_by: 'tok_1', assigned_to: rows[9].after.assigned_to }]);
  });

  it('leaves a waiting entry as it is, and queues an update once the event has gone out', async () => {
    const event = testEvent(modules.next(), 1);
    await inTransaction(pool, (client) => storeEvents(client, [event]));
    await changeEvent(pool, event.id, { requires_action: false }, OFFICER);
    expect(await outboxOf(event.id)).toEqual([{ change: 'created' }]);
    await pool.query('DELETE FROM event_outbox WHERE event_id = $1', [event.id]);
    const change = await changeEvent(pool, event.id, { incident_id: 'inc_9' }, OFFICER);
    expect(change).toMatchObject({ revision: 2, changed: true, event: { ...event, requires_action: false, incident_id: 'inc_9' } });
    expect(await outboxOf(event.id)).toEqual([{ change: 'updated' }]);
  });

  it('writes nothing for a change that changes nothing, and nothing for an unknown event', async () => {
    const event = testEvent(modules.next(), 1);
    await inTransaction(pool, (client) => storeEvents(client, [event]));
    await pool.query('DELETE FROM event_outbox WHERE event_id = $1', [event.id]);
    expect(await changeEvent(pool, event.id, { requires_action: true, incident_id: null }, OFFICER)).toEqual({ event, revision: 0, changed: false });
    expect(await outboxOf(event.id)).toEqual([]);
    expect(await changeEvent(pool, 'evt_00000000000000000000000000000000', { requires_action: true }, OFFICER)).toBeUndefined();
  });
});
