// Planning on the real Postgres: first attempts made in the planning transaction (the lock command, the
// escalation, the notices recorded done with their effects), a lane whose first attempt fails planned again
// for the executor, a repeat of an incident's notices muted across batches, and a lock made ahead by the
// locks group taken over by the plan (its incident filled in, not executed twice).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeEvents } from '../../../events/store.ts';
import { inTransaction, createPool, type Pool } from '../../../platform/postgres.ts';
import { listActions, recordExecuted, recordNewActions } from '../../../response/action-log.ts';
import { EventReads, type ExecutorContext } from '../../../response/executors/context.ts';
import { escalateEffect } from '../../../response/executors/escalate.ts';
import { lockGateEffect, lockGatesEffect } from '../../../response/executors/lock-gate.ts';
import { notifyEffect } from '../../../response/executors/notify.ts';
import { locksOf } from '../../../response/locks-first.ts';
import { planInLanes, type FirstAttempts, type PlanningSnapshot } from '../../../response/planning.ts';
import type { SecurityEvent } from '../../../schemas/event.ts';
import type { AlertRules } from '../../../schemas/maritime-rules.ts';
import { DEFAULT_SYSTEM_CONFIG, type SystemConfig } from '../../../schemas/system-config.ts';
import { scratchDatabase, type ScratchDatabase } from '../../support/scratch-database.ts';
import { testLog } from '../../support/stack.ts';

const ZONE = 'Ammunition quay';
const CONFIG: SystemConfig = { ...DEFAULT_SYSTEM_CONFIG, gates: [{ id: 'G1', name: 'North gate' }] };
const RULES = new Map<string, AlertRules>([[ZONE, { on_entry: { alert_level: 'high', actions: [{ action: 'lock_gates', gates: ['G1'] }] } }]]);

const entry = (id: string, mmsi: number, minute: number): SecurityEvent => ({
  id, type: 'zone_entry', timestamp: new Date(Date.UTC(2026, 10, 26, 3, minute)).toISOString(), category: 'maritime', severity: 'high', source_module: 'maritime.zones',
  source_device: 'ais', title: `Vessel ${mmsi} entered ${ZONE}`, description: 'test', location: { lat: 55.503, lng: 16.605, zone: ZONE }, metadata: { mmsi, zone_type: 'restricted' },
  requires_action: false, assigned_to: '', incident_id: null,
}) as SecurityEvent;

describe('response planning with first attempts on the real Postgres', () => {
  let db: ScratchDatabase;
  let pool: Pool;
  let config = CONFIG;
  const ctx: Pick<ExecutorContext, 'config'> = { config: () => config };
  const firstAttempts: FirstAttempts = { notify: notifyEffect(ctx), escalate: escalateEffect(ctx), lock_gate: lockGateEffect(ctx) };
  const snapshot = (): PlanningSnapshot => ({ config, alertRules: RULES });
  const stored = async (...events: SecurityEvent[]) => inTransaction(pool, (c) => storeEvents(c, events));
  const outbox = async (eventId: string) => (await pool.query<{ command_id: string }>(`SELECT command_id FROM gate_command_outbox WHERE command->'cause'->>'event_id' = $1`, [eventId])).rows;
  const brief = async (eventId: string) => (await listActions(pool, { eventId })).map((a) => `${a.kind}:${a.target}:${a.status}:${a.attempts}`).sort();

  beforeAll(async () => {
    db = await scratchDatabase('planning');
    pool = createPool(db.url, 4);
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  it('records the plan with each Postgres-only action done in the same transaction; planning again repeats nothing', async () => {
    const e = entry('evt_plan_1', 219_000_001, 1);
    await stored(e);
    await planInLanes(pool, [e], snapshot(), new Date(), 2, firstAttempts, testLog);
    expect(await brief(e.id)).toEqual(['dispatch_drone:inspect:pending:0', 'escalate:supervisor:done:1', 'lock_gate:G1:done:1', 'notify:audio_alarm:done:1', 'notify:push:done:1']);
    expect(await outbox(e.id)).toHaveLength(1);
    const { rows: locked } = await pool.query(`SELECT 1 FROM security_events WHERE type = 'gate_locked' AND body->'metadata'->>'cause_event_id' = $1`, [e.id]);
    expect(locked).toHaveLength(1);
    // The audio alarm set the flag: the event requires action, changed once (one history row besides the incident's).
    const { rows: changes } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM event_changes WHERE event_id = $1`, [e.id]);
    expect(changes[0]?.n).toBe(2);

    await planInLanes(pool, [e], snapshot(), new Date(), 2, firstAttempts, testLog);
    expect(await outbox(e.id)).toHaveLength(1);
    expect(await brief(e.id)).toEqual(['dispatch_drone:inspect:pending:0', 'escalate:supervisor:done:1', 'lock_gate:G1:done:1', 'notify:audio_alarm:done:1', 'notify:push:done:1']);
  });

  it('a first attempt that fails plans the lane again without them: everything recorded pending for the executor', async () => {
    config = { ...CONFIG, gates: [] }; // G1 left the configuration: its lock cannot be made
    try {
      const e = entry('evt_plan_2', 219_000_002, 2);
      await stored(e);
      await planInLanes(pool, [e], snapshot(), new Date(), 2, firstAttempts, testLog);
      expect(await brief(e.id)).toEqual(['dispatch_drone:inspect:pending:0', 'escalate:supervisor:pending:0', 'lock_gate:G1:pending:0', 'notify:audio_alarm:pending:0', 'notify:push:pending:0']);
      expect(await outbox(e.id)).toEqual([]);
    } finally {
      config = CONFIG;
    }
  });

  it('a repeat of the incident\'s notices, in a later batch or the same one, is muted as a duplicate; the lock is per event', async () => {
    const [a, b, c] = [entry('evt_rep_a', 219_000_003, 3), entry('evt_rep_b', 219_000_003, 4), entry('evt_rep_c', 219_000_003, 5)];
    await stored(a, b, c);
    await planInLanes(pool, [a], snapshot(), new Date(), 2, firstAttempts, testLog);
    await planInLanes(pool, [b, c], snapshot(), new Date(), 2, firstAttempts, testLog);
    const repeat = ['dispatch_drone:inspect:pending:0', 'escalate:supervisor:muted:0', 'lock_gate:G1:done:1', 'notify:audio_alarm:muted:0', 'notify:push:muted:0'];
    expect(await brief(b.id)).toEqual(repeat);
    expect(await brief(c.id)).toEqual(repeat);
    const push = (await listActions(pool, { eventId: b.id })).find((x) => x.target === 'push');
    expect(push?.params).toMatchObject({ duplicate_of: (await listActions(pool, { eventId: a.id })).find((x) => x.target === 'push')?.id });
    const { rows } = await pool.query<{ n: number }>(`SELECT count(DISTINCT incident_id)::int AS n FROM incident_events WHERE event_id = ANY($1)`, [[a.id, b.id, c.id]]);
    expect(rows[0]?.n).toBe(1);
  });

  it('a lock made ahead (the locks group) is not made again by the plan, which fills in its incident', async () => {
    const e = entry('evt_ahead', 219_000_004, 6);
    await stored(e);
    const locks = locksOf([e], snapshot());
    await inTransaction(pool, async (client) => {
      const fresh = await recordNewActions(client, locks);
      const reads = new EventReads(client);
      const due = locks.filter((l) => fresh.has(l.id)).map((l) => ({ id: l.id, kind: l.kind, target: l.target, eventId: l.event_id, incidentId: null, level: l.level, reason: l.reason, params: l.params }));
      const results = await lockGatesEffect(ctx)(due, { client, events: reads, now: new Date() });
      await recordExecuted(client, due.map((d, i) => ({ id: d.id, result: results[i] ?? {} })));
    });
    expect((await listActions(pool, { eventId: e.id }))[0]).toMatchObject({ kind: 'lock_gate', status: 'done', incident_id: null });
    await planInLanes(pool, [e], snapshot(), new Date(), 2, firstAttempts, testLog);
    const lock = (await listActions(pool, { eventId: e.id })).find((x) => x.kind === 'lock_gate');
    expect(lock).toMatchObject({ status: 'done', attempts: 1 });
    expect(lock?.incident_id).toMatch(/^inc_/);
    expect(await outbox(e.id)).toHaveLength(1);
  });
});
