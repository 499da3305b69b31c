// dispatch_drone (a rule's mission, or the level's default: automatic at high, immediate at critical): a
// mission for the event's subject, recorded with the nearest available drone and its launch command in the
// transaction that records the action done (drones/, docs/drones.md). No drone available: with the fleet
// connected the action fails with the reason (retried on the action log's schedule; the mission waits in
// requested until a drone frees up or its deadline passes) and the incident escalates once; with no drone
// reporting at all it is recorded as waiting for the fleet. A mission that later times out, is rejected or
// fails escalates its incident the same way (escalateUnanswered, given to the drones role).
import { readEvent } from '../../events/queries.ts';
import { groupingOf } from '../../incidents/grouping.ts';
import { vesselNumber } from '../../incidents/grouping.ts';
import { inTransaction, type PoolClient } from '../../platform/postgres.ts';
import type { SecurityEvent } from '../../schemas/event.ts';
import type { MissionTarget } from '../../schemas/drone.ts';
import type { SystemConfig } from '../../schemas/system-config.ts';
import { fleetConnected, zoneCentre } from '../../drones/fleet-state.ts';
import type { Mission } from '../../drones/mission-store.ts';
import { missionIdOf, requestMission, type MissionSettings } from '../../drones/missions.ts';
import { completeAction, recordActions, type ClaimedAction } from '../action-log.ts';
import type { ActionHandler } from '../executor.ts';
import { fleetEscalation } from '../fleet-escalation.ts';
import { RetryLater } from '../retry-later.ts';
import { RESPONSE_MODULE, type ExecutorContext } from './context.ts';

/** Where the event happened, as a mission target. */
async function targetOf(client: PoolClient, event: SecurityEvent): Promise<MissionTarget | undefined> {
  const { lat, lng, zone } = event.location;
  if (lat !== undefined && lng !== undefined) return { type: 'Point', coordinates: [lng, lat] };
  const centre = zone === undefined ? undefined : await zoneCentre(client, zone);
  return centre === undefined ? undefined : { type: 'Point', coordinates: [centre.lon, centre.lat] };
}

/**
 * Records an escalate action for a mission's incident (fleetEscalation: the next party, once per mission and
 * `why`, however often a dispatch without a drone is retried).
 */
export async function escalateForMission(client: PoolClient, config: SystemConfig, mission: Pick<Mission, 'id' | 'incident_id' | 'event_id'>, why: string, detail: string, level: string): Promise<boolean> {
  if (mission.incident_id === null || mission.event_id === null) return false;
  const { rows } = await client.query<{ target: string }>(`SELECT DISTINCT target FROM response_actions WHERE incident_id = $1 AND kind = 'escalate'`, [mission.incident_id]);
  const escalation = fleetEscalation(config.escalation_order, new Set(rows.map((r) => r.target)), mission.id, why);
  if (escalation === undefined) return false;
  const recorded = await recordActions(client, [{
    id: escalation.id, kind: 'escalate', target: escalation.party, event_id: mission.event_id, incident_id: mission.incident_id,
    level: (['info', 'low', 'medium', 'high', 'critical'].includes(level) ? level : 'high') as 'high', source: 'fleet', reason: `fleet:${detail}`.slice(0, 500), params: {}, muted: false,
  }]);
  return recorded > 0;
}

/** The drones role's hook: a mission that timed out, was rejected or failed escalates its incident. */
export function escalateUnanswered(config: () => SystemConfig) {
  return async (client: PoolClient, u: { mission: Mission; outcome: string; detail: string }): Promise<void> => {
    await escalateForMission(client, config(), u.mission, u.outcome, `drone mission ${u.mission.id} ${u.outcome}: ${u.detail}`, 'high');
  };
}

export function dispatchDroneExecutor(ctx: ExecutorContext, fleet: MissionSettings): ActionHandler {
  return async (action: ClaimedAction) => {
    const now = ctx.now();
    const outcome = await inTransaction(ctx.pool, async (client) => {
      const cause = await readEvent(client, action.eventId);
      if (cause === undefined) throw new Error(`event ${action.eventId} is not stored`);
      const target = await targetOf(client, cause);
      if (target === undefined) return { kept: await completeAction(client, action, { mission: null, skipped: 'the event gives no place to fly to (no coordinates, no known zone)' }) };
      const mmsi = vesselNumber((cause.metadata as { mmsi?: unknown }).mmsi) ?? null;
      const requested = await requestMission(client, {
        id: missionIdOf(`action:${action.id}`), kind: action.target, target, subject: groupingOf(cause).key, incident_id: action.incidentId, event_id: cause.id, action_id: action.id,
        priority: action.params.priority ?? 'automatic', mmsi, requested_by: RESPONSE_MODULE, idempotency_key: null,
      }, fleet, now);
      const m = requested.mission;
      const result = { mission_id: m.id, drone_id: m.drone_id, status: m.status, ...(m.id === missionIdOf(`action:${action.id}`) ? {} : { note: 'the incident already has an active mission for this subject' }) };
      if (m.drone_id !== null || m.status !== 'requested' || m.id !== missionIdOf(`action:${action.id}`)) return { kept: await completeAction(client, action, result) };
      if (!(await fleetConnected(client, fleet, now))) return { kept: await completeAction(client, action, { ...result, fleet: 'not connected' }, 'waiting_fleet') };
      const reasons = requested.waiting ?? ['no drone available'];
      await escalateForMission(client, ctx.config(), m, 'no_drone', `no drone available for mission ${m.id}: ${reasons.join('; ')}`, action.level);
      return { failed: `no drone available for mission ${m.id}: ${reasons.join('; ')}` };
    });
    if ('failed' in outcome) {
      ctx.relay.wake();
      throw new RetryLater(outcome.failed);
    }
    return outcome.kept;
  };
}
