// The action log on the real Postgres: a planned action is recorded once however often its event is
// planned again, two executors never hold one action, a lost claim writes nothing, and failures follow the
// retry schedule until given up. A scratch database, so other files' actions are not claimed here.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { claimDueActions, completeAction, failAction, listActions, recordActions, ACTION_LEASE_MS, ACTION_RETRY_DELAYS_MS } from '../../../response/action-log.ts';
import { ActionExecutor, type ActionHandler } from '../../../response/executor.ts';
import { RetryLater } from '../../../response/retry-later.ts';
import { createLogger } from '../../../platform/log.ts';
import { planActions } from '../../../response/planner.ts';
import { createPool, inTransaction, type Pool } from '../../../platform/postgres.ts';
import { DEFAULT_SYSTEM_CONFIG } from '../../../schemas/system-config.ts';
import type { SecurityEvent } from '../../../schemas/event.ts';
import { scratchDatabase, type ScratchDatabase } from '../../support/scratch-database.ts';
import { testLog } from '../../support/stack.ts';

const event = (id: string, severity: SecurityEvent['severity'] = 'critical'): SecurityEvent => ({
  id, type: 'perimeter_breach', timestamp: '2026-11-26T03:00:00.000Z', category: 'perimeter', severity, source_module: 'perimeter',
  source_device: 'fence-1', title: 'Breach', description: 'Breach', location: { lat: 55.7, lng: 12.6 }, metadata: {}, requires_action: true, assigned_to: '', incident_id: null,
}) as unknown as SecurityEvent;

describe('response action log on the real Postgres', () => {
  let db: ScratchDatabase;
  let pool: Pool;

  beforeAll(async () => {
    db = await scratchDatabase('actions');
    pool = createPool(db.url, 4);
  });
  // Each case claims what is due: it starts from an empty log.
  beforeEach(async () => {
    await pool.query('DELETE FROM response_actions');
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  it('records each planned action once, however often its event is planned again', async () => {
    const plan = () => planActions({ event: event('evt_once'), rule: undefined, config: DEFAULT_SYSTEM_CONFIG, incident: { id: 'inc_a', status: 'open', inhibitsNotifications: false } });
    const first = await inTransaction(pool, (c) => recordActions(c, plan()));
    const again = await inTransaction(pool, (c) => recordActions(c, plan()));
    expect(first).toBe(plan().length);
    expect(again).toBe(0);
    const stored = await listActions(pool, { incidentId: 'inc_a' });
    expect(stored.map((a) => `${a.kind}:${a.target}`).sort()).toEqual(plan().map((a) => `${a.kind}:${a.target}`).sort());
    expect(new Set(stored.map((a) => a.status))).toEqual(new Set(['pending']));
  });

  it('two executors claiming at once never hold the same action; a muted action is never claimed', async () => {
    const planned = planActions({ event: event('evt_race', 'high'), rule: undefined, config: DEFAULT_SYSTEM_CONFIG, incident: { id: 'inc_b', status: 'open', inhibitsNotifications: true } });
    await inTransaction(pool, (c) => recordActions(c, planned));
    const [a, b] = await Promise.all([claimDueActions(pool, 100), claimDueActions(pool, 100)]);
    const ids = [...a!, ...b!].map((x) => x.id);
    expect(new Set(ids).size).toBe(ids.length);
    const claimable = (await listActions(pool, { eventId: 'evt_race' })).filter((x) => x.status !== 'muted').map((x) => x.id);
    expect(ids.filter((id) => claimable.includes(id)).sort()).toEqual(claimable.sort());
    expect((await listActions(pool, { eventId: 'evt_race' })).filter((x) => x.status === 'muted').map((x) => x.kind).sort()).toEqual(['escalate', 'notify', 'notify']);
  });

  it('a claim whose lease ended and was taken over records nothing; the new holder does', async () => {
    await inTransaction(pool, (c) => recordActions(c, planActions({ event: event('evt_lease'), rule: undefined, config: DEFAULT_SYSTEM_CONFIG, incident: undefined }).slice(0, 1)));
    const now = Date.now();
    const [old] = await claimDueActions(pool, 10, now);
    expect(await claimDueActions(pool, 10, now + 1_000)).toEqual([]);
    const [taken] = await claimDueActions(pool, 10, now + ACTION_LEASE_MS + 1);
    expect(taken?.id).toBe(old?.id);
    expect(taken?.attempt).toBe(2);
    expect(await completeAction(pool, old!, { by: 'old' })).toBe(false);
    expect(await completeAction(pool, taken!, { by: 'new' })).toBe(true);
    const [view] = await listActions(pool, { eventId: 'evt_lease' });
    expect(view).toMatchObject({ status: 'done', result: { by: 'new' } });
  });

  it('a failing action is retried on the schedule, then given up', async () => {
    await inTransaction(pool, (c) => recordActions(c, planActions({ event: event('evt_fail'), rule: undefined, config: DEFAULT_SYSTEM_CONFIG, incident: undefined }).slice(0, 1)));
    let now = Date.now();
    const outcomes: string[] = [];
    for (let i = 0; i <= ACTION_RETRY_DELAYS_MS.length; i++) {
      const [claimed] = await claimDueActions(pool, 10, now);
      expect(claimed?.attempt).toBe(i + 1);
      outcomes.push(await failAction(pool, claimed!, `boom ${i}`, now));
      expect(await claimDueActions(pool, 10, now + (ACTION_RETRY_DELAYS_MS[i] ?? 0) - 1)).toEqual([]);
      now += (ACTION_RETRY_DELAYS_MS[i] ?? 0) + 1;
    }
    expect(outcomes).toEqual([...ACTION_RETRY_DELAYS_MS.map(() => 'retry'), 'given_up']);
    const [view] = await listActions(pool, { eventId: 'evt_fail' });
    expect(view).toMatchObject({ status: 'given_up', attempts: ACTION_RETRY_DELAYS_MS.length + 1, last_error: `boom ${ACTION_RETRY_DELAYS_MS.length}` });
    expect(await claimDueActions(pool, 10, now + 3_600_000)).toEqual([]);
  });
});

describe('response executor on the real Postgres', () => {
  let db: ScratchDatabase;
  let pool: Pool;

  beforeAll(async () => {
    db = await scratchDatabase('executor');
    pool = createPool(db.url, 6);
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  it('two executors run every action exactly once; a failing one is retried and then done', async () => {
    const planned = planActions({ event: event('evt_exec'), rule: undefined, config: DEFAULT_SYSTEM_CONFIG, incident: undefined });
    await inTransaction(pool, (c) => recordActions(c, planned));
    const runs = new Map<string, number>();
    let failOnce = true;
    const handler: ActionHandler = async (action) => {
      runs.set(action.id, (runs.get(action.id) ?? 0) + 1);
      if (action.kind === 'escalate' && action.target === 'coast_guard' && failOnce) {
        failOnce = false;
        throw new Error('party unreachable');
      }
      return completeAction(pool, action, { executor: 'test' });
    };
    const handlers = { notify: handler, escalate: handler, lock_gate: handler, dispatch_drone: handler, close_incident: handler };
    const a = new ActionExecutor({ pool, log: testLog, handlers });
    const b = new ActionExecutor({ pool, log: testLog, handlers });
    const now = Date.now();
    await Promise.all([a.runOnce(now), b.runOnce(now)]);
    expect([...runs.values()].every((n) => n === 1)).toBe(true);
    expect(runs.size).toBe(planned.length);
    // The failed escalation is due again after the first retry delay, and only then.
    expect(await a.runOnce(now + ACTION_RETRY_DELAYS_MS[0] - 10)).toBe(0);
    expect(await b.runOnce(now + ACTION_RETRY_DELAYS_MS[0] + 10)).toBe(1);
    const views = await listActions(pool, { eventId: 'evt_exec' });
    expect(views.every((v) => v.status === 'done')).toBe(true);
    expect(views.find((v) => v.target === 'coast_guard')).toMatchObject({ attempts: 2 });
  });

  // Issue 34 (the demo's table): a dispatch with no drone free is an expected wait (the incident is escalated
  // meanwhile), yet every retry was logged at warn with a stack trace, on the operator's terminal. A RetryLater
  // is retried on the same schedule, logged at info without a stack; any other failure stays a warning.
  it('an expected wait (RetryLater) is retried on the schedule and logged at info, any other failure at warn', async () => {
    const planned = planActions({ event: event('evt_wait'), rule: undefined, config: DEFAULT_SYSTEM_CONFIG, incident: undefined });
    await inTransaction(pool, (c) => recordActions(c, planned));
    const lines: { level: number; msg: string; err?: unknown; target?: string }[] = [];
    const log = createLogger('info', { write: (line: string) => void lines.push(JSON.parse(line) as (typeof lines)[number]) });
    const handler: ActionHandler = async (action) => {
      if (action.kind === 'escalate' && action.target === 'coast_guard') throw new RetryLater('no drone available for mission msn_1: every drone is busy');
      if (action.kind === 'escalate' && action.target === 'port_authority') throw new Error('party unreachable');
      return completeAction(pool, action, { executor: 'test' });
    };
    const executor = new ActionExecutor({ pool, log, handlers: { notify: handler, escalate: handler, lock_gate: handler, dispatch_drone: handler, close_incident: handler } });
    await executor.runOnce(Date.now());
    const waiting = lines.filter((l) => l.msg === 'response action waiting; retried on its schedule');
    const failed = lines.filter((l) => l.msg.startsWith('response action failed'));
    expect(waiting.map((l) => ({ level: l.level, target: l.target, err: l.err }))).toEqual([{ level: 30, target: 'coast_guard', err: undefined }]);
    expect(failed.map((l) => ({ level: l.level, target: l.target }))).toEqual([{ level: 40, target: 'port_authority' }]);
    const views = await listActions(pool, { eventId: 'evt_wait' });
    expect(views.find((v) => v.target === 'coast_guard')).toMatchObject({ status: 'failed', attempts: 1 });
  });
});
