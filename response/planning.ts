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
import type { Logger } from '../platform/log.ts';
import { recordExecuted, recordNewActions } from './action-log.ts';
import { countExecutedInline } from './executor.ts';
import { EventReads, RESPONSE_MODULE, type ActionEffect } from './executors/context.ts';
import { noticesOf, planActions, type ActionKind, type MatchedRule, type PlannedAction, type SentNotice } from './planner.ts';

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

/**
 * The notices recorded for an incident on earlier events of this event's type and zone since the incident
 * was last opened (a reopening starts afresh), not muted: what a repeat of them must not send again.
 */
async function sentNotices(client: PoolClient, incidentId: string, event: SecurityEvent): Promise<Map<string, SentNotice>> {
  // Since the incident was last opened: the events attached at or after its last opened/reopened revision.
  const { rows } = await client.query<Pick<PlannedAction, 'id' | 'kind' | 'target' | 'level'>>(
    `SELECT a.id, a.kind, a.target, a.level
       FROM incident_changes c
       JOIN security_events e ON e.id = c.event_id AND e.type = $2 AND e.zone IS NOT DISTINCT FROM $3
       JOIN response_actions a ON a.event_id = c.event_id AND a.incident_id = $1
      WHERE c.incident_id = $1 AND c.event_id IS NOT NULL AND c.event_id <> $4
        AND c.action IN ('opened', 'reopened', 'event_attached')
        AND c.revision >= (SELECT max(revision) FROM incident_changes WHERE incident_id = $1 AND action IN ('opened', 'reopened'))
        AND a.status <> 'muted' AND a.source <> 'ack_timeout' AND (a.kind = 'escalate' OR (a.kind = 'notify' AND a.target <> 'dashboard'))`,
    [incidentId, event.type, event.location.zone ?? null, event.id],
  );
  return noticesOf(rows.map((r) => ({ ...r, muted: false })));
}

/** The effects planning runs as the first attempt of the actions it records, by kind; other kinds wait for the executor. */
export type FirstAttempts = Partial<Record<ActionKind, ActionEffect>>;

/**
 * Attaches, plans and records one batch's events in the caller's transaction; returns the actions planned.
 * With `firstAttempts`, each action recorded anew (not muted, not a replay's) of a kind listed there is also
 * executed here and recorded done: the lock command of a critical entry leaves in the transaction that
 * planned it, with no claim, no transaction and no event read of its own. Any failure throws, so the caller
 * plans the batch again without them and the executor takes the actions (planInLanes). Returns the actions planned and the kinds of those executed here.
 */
export async function planEvents(client: PoolClient, events: readonly SecurityEvent[], snapshot: PlanningSnapshot, now: Date, firstAttempts: FirstAttempts = {}): Promise<{ planned: PlannedAction[]; executed: ActionKind[] }> {
  const { config, alertRules } = snapshot;
  const ackTimeoutMinutes = Object.fromEntries(Object.entries(config.alert_levels).map(([level, b]) => [level, b.ack_timeout_minutes]));
  const planned: PlannedAction[] = [];
  // This batch's plans by incident, event type and zone: a repeat later in the batch is one too.
  const batchNotices = new Map<string, PlannedAction[]>();
  for (const event of events) {
    const attached = await attachEvent(client, event, {
      groupWindowMinutes: config.incidents.group_window_minutes,
      reopenWindowMinutes: config.incidents.reopen_window_minutes,
      ackTimeoutMinutes,
    }, now);
    const incident = attached?.incident;
    const rule = matchedRule(alertRules, event);
    const repeatKey = incident === undefined ? undefined : `${incident.id}\u0000${event.type}\u0000${event.location.zone ?? ''}`;
    const earlierInBatch = repeatKey === undefined ? [] : (batchNotices.get(repeatKey) ?? []);
    // A new incident, or one this event reopened, has sent nothing since it was opened.
    const joined = incident !== undefined && attached?.created === false && attached.reopened === false;
    const noticesSent = joined ? noticesOf(earlierInBatch, await sentNotices(client, incident.id, event)) : noticesOf(earlierInBatch);
    const actions = planActions({
      event, rule, config,
      incident: incident === undefined ? undefined : { id: incident.id, status: incident.status, inhibitsNotifications: isInhibited(incident, event.severity), noticesSent },
    });
    if (repeatKey !== undefined) batchNotices.set(repeatKey, [...earlierInBatch, ...actions]);
    planned.push(...actions);
  }
  const fresh = await recordNewActions(client, planned);
  const reads = new EventReads(client);
  const executed: { id: string; kind: ActionKind; result: Record<string, unknown> }[] = [];
  for (const action of planned) {
    const effect = firstAttempts[action.kind];
    if (effect === undefined || action.muted || !fresh.has(action.id)) continue;
    const input = { id: action.id, kind: action.kind, target: action.target, eventId: action.event_id, incidentId: action.incident_id, level: action.level, reason: action.reason, params: action.params };
    executed.push({ id: action.id, kind: action.kind, result: await effect(input, { client, events: reads, now }) });
  }
  await recordExecuted(client, executed.map(({ id, result }) => ({ id, result })));
  return { planned, executed: executed.map((e) => e.kind) };
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

/**
 * Plans a batch in `lanes` transactions side by side (lanesOf); resolves when all have committed. A lane
 * whose first attempts failed (a gate no longer configured, a statement refused) is planned again without
 * them, so one action's trouble costs that lane its fast path, never its plan: the executor retries.
 */
export async function planInLanes(pool: Pool, events: readonly SecurityEvent[], snapshot: PlanningSnapshot, now: Date, lanes: number, firstAttempts: FirstAttempts = {}, log?: Logger): Promise<number> {
  const planLane = async (lane: SecurityEvent[]): Promise<number> => {
    try {
      const { planned, executed } = await inTransaction(pool, (client) => planEvents(client, lane, snapshot, now, firstAttempts));
      for (const kind of executed) countExecutedInline(kind);
      return planned.length;
    } catch (err) {
      if (Object.keys(firstAttempts).length === 0) throw err;
      log?.warn({ err, events: lane.length }, 'response planning: a first attempt failed; planning the lane again for the executor');
      return (await inTransaction(pool, (client) => planEvents(client, lane, snapshot, now))).planned.length;
    }
  };
  const planned = await Promise.all(lanesOf(events, lanes).map(planLane));
  return planned.reduce((n, p) => n + p, 0);
}
