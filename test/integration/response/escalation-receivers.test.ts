// Issue 33, item 9, on the real Postgres: an escalation is delivered to the party's receivers (its active
// webhooks) and its record says how many were told. A critical zone entry escalates to every party: the
// supervisor has an active and an inactive webhook (one delivery), the port authority only an inactive one
// and the coast guard none (0 receivers each: nobody was told), as GET /v1/incidents/{id} shows them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeEvents } from '../../../events/store.ts';
import { createPool, inTransaction, type Pool } from '../../../platform/postgres.ts';
import { listActions } from '../../../response/action-log.ts';
import { escalateEffect } from '../../../response/executors/escalate.ts';
import { incidentResponseRecords } from '../../../response/incident-records.ts';
import { planInLanes } from '../../../response/planning.ts';
import type { SecurityEvent } from '../../../schemas/event.ts';
import { DEFAULT_SYSTEM_CONFIG, type SystemConfig } from '../../../schemas/system-config.ts';
import { scratchDatabase, type ScratchDatabase } from '../../support/scratch-database.ts';
import { testLog } from '../../support/stack.ts';

const CONFIG: SystemConfig = {
  ...DEFAULT_SYSTEM_CONFIG,
  parties: [
    { id: 'supervisor', name: 'Shift supervisor', webhook_ids: ['wh_on', 'wh_off'], operator_groups: ['supervisors'] },
    { id: 'port_authority', name: 'Port authority', webhook_ids: ['wh_off'], operator_groups: [] },
    { id: 'coast_guard', name: 'Coast guard', webhook_ids: [], operator_groups: [] },
  ],
};

const entry: SecurityEvent = {
  id: 'evt_receivers_entry', type: 'zone_entry', timestamp: new Date().toISOString(), category: 'maritime', severity: 'critical',
  source_module: 'maritime.zones', source_device: 'ais', title: 'Vessel 219000777 entered exclusion zone Naval base', description: 'test',
  location: { lat: 55.7, lng: 12.6, zone: 'Naval base' }, metadata: { mmsi: 219_000_777, zone_type: 'exclusion' },
  requires_action: true, assigned_to: '', incident_id: null,
} as SecurityEvent;

describe('escalations and the parties\' receivers', () => {
  let db: ScratchDatabase;
  let pool: Pool;

  beforeAll(async () => {
    db = await scratchDatabase('escalation_receivers');
    pool = createPool(db.url, 4, testLog);
    await pool.query(
      `INSERT INTO webhooks (id, name, url, events, secret_sealed, secret_hint, active) VALUES
         ('wh_on', 'Supervisor pager', 'https://hooks.example.com/on', '{}', 'sealed', 'abcd', true),
         ('wh_off', 'Disabled after failures', 'https://hooks.example.com/off', '{}', 'sealed', 'abcd', false)`,
    );
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  it('delivers to active webhooks only and records the count: 0 when nobody was told', async () => {
    await inTransaction(pool, (c) => storeEvents(c, [entry]));
    await planInLanes(pool, [entry], { config: CONFIG, alertRules: new Map() }, new Date(), 1, { escalate: escalateEffect({ config: () => CONFIG }) }, testLog);
    const actions = await listActions(pool, { eventId: entry.id });
    const { escalations } = incidentResponseRecords(actions);
    expect(Object.fromEntries(escalations.map((e) => [e.party, [e.status, e.webhook_ids, e.receivers]]))).toEqual({
      supervisor: ['done', ['wh_on'], 1],
      port_authority: ['done', [], 0],
      coast_guard: ['done', [], 0],
    });
    const { rows } = await pool.query<{ webhook_id: string; party: string }>(
      `SELECT d.webhook_id, e.body->'metadata'->>'party' AS party FROM webhook_deliveries d JOIN security_events e ON e.id = d.event_id WHERE e.type = 'incident_escalated'`,
    );
    expect(rows).toEqual([{ webhook_id: 'wh_on', party: 'supervisor' }]);
  });
});
