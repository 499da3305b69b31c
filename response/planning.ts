// The response loop's first step: every new event on security.events is attached to its incident, planned
// (response/planner.ts) and its actions recorded, in one Postgres transaction per batch. A replay of the
// topic, a crashed batch retried, or a second instance reading after a rebalance plans the same ids, so
// nothing is recorded twice; the executor then runs what was recorded.
import { groupingOf } from '../incidents/grouping.ts';
import { attachEvent } from '../incidents/store.ts';
import { isInhibited } from '../incidents/incident-state.ts';
import { isIncidentEvent } from '../incidents/incident-events.ts';
import type { InRecord } from '../platform/kafka/index.ts';
import { inTransaction, type Pool, type PoolClient } from '../platform/postgres.ts';
import type { SecurityEvent } from '../schemas/event.ts';
import type { AlertRules } from '../schemas/maritime-rules.ts';
import type { SystemConfig } from '../schemas/system-config.ts';
import { matchAlertRule } from '../processors/maritime/rules/alert-rule-match.ts';
import { recordActions } from './action-log.ts';
import { RESPONSE_MODULE } from './executors/context.ts';
import { planActions, type MatchedRule, type PlannedAction } from './planner.ts';

/** Whether a record on security.events is a new event to respond to (not an operator's update of one, not our own). */
export function respondsTo(record: Pick<InRecord, 'headers'>, event: SecurityEvent): boolean {
  if (record.headers.change === 'updated') return false;
  if (isIncidentEvent(event) || event.source_module === RESPONSE_MODULE) return false;
  return (event.metadata as { test?: unknown }).test !== true;
}

/** The matched zone alert rule, in the planner's terms. */
export function matchedRule(rules: ReadonlyMap<string, AlertRules>, event: SecurityEvent): MatchedRule | undefined {
  const zone = event.location.zone;
  if (zone === undefined) return undefined;
  const match = matchAlertRule(rules.get(zone), event);
  if (match === undefined) return undefined;
  return { zone, trigger: match.trigger, alert_level: match.rule.alert_level, actions: (match.rule.actions ?? []) as MatchedRule['actions'] };
}

export interface PlanningSnapshot {
  config: SystemConfig;
  alertRules: ReadonlyMap<string, AlertRules>;
}

/** Attaches, plans and records one batch's events in the caller's transaction; returns the actions recorded anew. */
export async function planEvents(client: PoolClient, events: readonly SecurityEvent[], snapshot: PlanningSnapshot, now: Date): Promise<PlannedAction[]> {
  const { config, alertRules } = snapshot;
  const ackTimeoutMinutes = Object.fromEntries(Object.entries(config.alert_levels).map(([level, b]) => [level, b.ack_timeout_minutes]));
  const planned: PlannedAction[] = [];
  for (const event of events) {
    const attached = await attachEvent(client, event, {
      groupWindowMinutes: config.incidents.group_window_minutes,
      reopenWindowMinutes: config.incidents.reopen_window_minutes,
      ackTimeoutMinutes,
    }, now);
    const incident = attached?.incident;
    const rule = matchedRule(alertRules, event);
    planned.push(...planActions({
      event, rule, config,
      incident: incident === undefined ? undefined : { id: incident.id, status: incident.status, inhibitsNotifications: isInhibited(incident, event.severity) },
    }));
  }
  await recordActions(client, planned);
  return planned;
}

/**
 * Splits a batch into `lanes` by the subject its events are grouped on (the key the event names itself,
 * before the booking look-ups), each lane in event-time order. Lanes are planned side by side in their own
 * transactions: one subject's events stay in one lane and in order, and attachEvent's lock on the final
 * key keeps two lanes from opening one incident twice when a booking links their subjects.
 */
export function lanesOf(events: readonly SecurityEvent[], lanes: number): SecurityEvent[][] {
  const out: SecurityEvent[][] = Array.from({ length: lanes }, () => []);
  for (const event of events) {
    const key = groupingOf(event).key;
    let h = 0;
    for (let i = 0; i < key.length; i++) h = (Math.imul(h, 31) + key.charCodeAt(i)) | 0;
    out[Math.abs(h) % lanes]?.push(event);
  }
  for (const lane of out) lane.sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp) || (a.id < b.id ? -1 : 1));
  return out.filter((lane) => lane.length > 0);
}

/** Plans a batch in `lanes` transactions side by side (lanesOf); resolves when all have committed. */
export async function planInLanes(pool: Pool, events: readonly SecurityEvent[], snapshot: PlanningSnapshot, now: Date, lanes: number): Promise<number> {
  const planned = await Promise.all(lanesOf(events, lanes).map((lane) => inTransaction(pool, (client) => planEvents(client, lane, snapshot, now))));
  return planned.reduce((n, p) => n + p.length, 0);
}
