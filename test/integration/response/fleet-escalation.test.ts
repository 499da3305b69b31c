// Issue 33, item 10, on the real Postgres: a dwell_escalation whose ladder action is notify_supervisor (high)
// while the fleet reports but no drone can fly. The event escalates to the supervisor (the ladder and the
// high level's default, one action) and dispatches a drone (the high level's automatic dispatch); the dispatch
// finds no drone and escalates the incident once, to the next party. Its retries (1 s, 5 s, ...) find the
// mission still waiting and must not escalate again: each used to pick the next party not yet escalated to,
// giving a new action id, so the first attempt and the 1 s retry reached port authority and coast guard
// within two seconds of the supervisor, every escalation titled with the cause's "...: notify_supervisor".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTelemetry } from '../../../drones/mission-store.ts';
import type { MissionSettings } from '../../../drones/missions.ts';
import { storeEvents } from '../../../events/store.ts';
import { createPool, inTransaction, type Pool } from '../../../platform/postgres.ts';
import { listActions } from '../../../response/action-log.ts';
import { ActionExecutor, effectHandler } from '../../../response/executor.ts';
import { closeIncidentEffect } from '../../../response/executors/close-incident.ts';
import type { ExecutorContext } from '../../../response/executors/context.ts';
import { dispatchDroneExecutor } from '../../../response/executors/dispatch-drone.ts';
import { escalateEffect } from '../../../response/executors/escalate.ts';
import { lockGateEffect } from '../../../response/executors/lock-gate.ts';
import { notifyEffect } from '../../../response/executors/notify.ts';
import { planInLanes, type FirstAttempts } from '../../../response/planning.ts';
import type { SecurityEvent } from '../../../schemas/event.ts';
import { DEFAULT_SYSTEM_CONFIG } from '../../../schemas/system-config.ts';
import { scratchDatabase, type ScratchDatabase } from '../../support/scratch-database.ts';
import { testLog } from '../../support/stack.ts';

const S: MissionSettings = { launchBatteryPercent: 60, lowBatteryPercent: 25, telemetryIntervalMs: 1_000, lostLinkIntervals: 60, cruiseSpeedMps: 10, enduranceMinutes: 30, ackTimeoutMs: 15_000, requestTimeoutMs: 600_000 };
const ZONE = 'Cruise terminal';
const TITLE = 'CROWN OF SCANDINAVIA 5 min past the dwell limit in restricted zone Cruise terminal: notify_supervisor';

const dwellEscalation = (at: Date): SecurityEvent => ({
  id: 'evt_dwell_esc_notify_supervisor', type: 'dwell_escalation', timestamp: at.toISOString(), category: 'maritime', severity: 'high',
  source_module: 'maritime.zones', source_device: 'ais', title: TITLE, description: 'Dwell 10 min (limit 5 min, escalation after 5 min more).',
  location: { lat: 55.7023, lng: 12.5975, zone: ZONE },
  metadata: { mmsi: 219_000_432, zone_type: 'restricted', alert_status: 'escalated', action: 'notify_supervisor', after_minutes: 5, threshold_minutes: 5 },
  requires_action: true, assigned_to: '', incident_id: null,
}) as SecurityEvent;

describe('a dwell escalation (notify_supervisor) while no drone can fly', () => {
  let db: ScratchDatabase;
  let pool: Pool;
  let clock = new Date();
  const exec = (): ExecutorContext => ({ pool, config: () => DEFAULT_SYSTEM_CONFIG, relay: { wake: () => undefined }, now: () => clock });

  beforeAll(async () => {
    db = await scratchDatabase('fleet_escalation');
    pool = createPool(db.url, 4, testLog);
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  it('escalates to the supervisor for the ladder and once more (port authority) for the missing drone, however often the dispatch is retried', async () => {
    const t0 = new Date();
    clock = t0;
    const ctx = exec();
    const event = dwellEscalation(t0);
    await inTransaction(pool, (c) => storeEvents(c, [event]));
    // The fleet is connected, but its one drone is below the launch battery: no drone available.
    await inTransaction(pool, (c) => writeTelemetry(c, [{ id: 'drone-b', dock_id: 'dock-b', state: 'docked', battery_percent: 42, lon: 12.60, lat: 55.70, altitude_m: 0, link: 'up', speed_mps: 0, last_seen: t0.toISOString(), low_battery: null }]));

    const effects = { notify: notifyEffect(ctx), escalate: escalateEffect(ctx), lock_gate: lockGateEffect(ctx), close_incident: closeIncidentEffect() } satisfies FirstAttempts;
    await planInLanes(pool, [event], { config: DEFAULT_SYSTEM_CONFIG, alertRules: new Map() }, t0, 1, effects, testLog);
    const executor = new ActionExecutor({
      pool, log: testLog,
      handlers: {
        notify: effectHandler(ctx, effects.notify), escalate: effectHandler(ctx, effects.escalate), lock_gate: effectHandler(ctx, effects.lock_gate),
        close_incident: effectHandler(ctx, effects.close_incident), dispatch_drone: dispatchDroneExecutor(ctx, S),
      },
    });
    // The dispatch's first attempt, (half a second after planning), then its retries at 1 s, 5 s and 30 s (each a little late), all without a drone.
    for (const after of [500, 2_000, 8_000, 40_000]) {
      clock = new Date(t0.getTime() + after);
      await executor.runOnce(clock.getTime());
    }

    const actions = await listActions(pool, { eventId: event.id });
    const incidentId = actions[0]?.incident_id;
    expect(incidentId).toMatch(/^inc_/);
    const dispatch = actions.find((a) => a.kind === 'dispatch_drone');
    expect(dispatch).toMatchObject({ status: 'failed', attempts: 4 });
    expect(dispatch?.last_error).toContain('drone-b battery 42% is below 60%');

    const escalations = (await listActions(pool, { incidentId: incidentId as string })).filter((a) => a.kind === 'escalate');
    expect(escalations.map((a) => `${a.target}:${a.source}:${a.status}`)).toEqual(['supervisor:ladder:done', 'port_authority:fleet:done']);
    const { rows } = await pool.query<{ party: string; title: string }>(`SELECT body->'metadata'->>'party' AS party, body->>'title' AS title FROM security_events WHERE type = 'incident_escalated' AND body->'metadata'->>'cause_event_id' = $1`, [event.id]);
    // Each says why: the ladder's rung, and the drone that could not fly.
    expect(Object.fromEntries(rows.map((r) => [r.party, r.title]))).toEqual({
      supervisor: `Escalated to Shift supervisor (dwell ladder notify_supervisor): ${TITLE}`,
      port_authority: expect.stringMatching(new RegExp(`^Escalated to Port authority \\(no drone available for mission msn_[0-9a-f]+\\): ${TITLE}$`)),
    });
  });
});
