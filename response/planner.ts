// What happens after an event (issue 23): a pure function of the event, the zone alert rule it matched, the
// system configuration and the incident it joined. Every action's id is derived from its cause, so a replay
// of security.events or a second instance plans the same ids, and the action log's primary key makes each
// happen once.
import { createHash } from 'node:crypto';
import type { SecurityEvent } from '../schemas/event.ts';
import { DWELL_LADDER_PARTIES, type LevelBehaviour, type SystemConfig } from '../schemas/system-config.ts';
import { ALERT_LEVELS, type AlertLevel, type EscalationAction } from '../schemas/zone.ts';

/** An action of a zone alert rule (schemas/maritime-rules.ts `alert_rules`), as the planner reads it. */
export type RuleAction =
  | { action: 'notify_operator'; assign_to?: string }
  | { action: 'dispatch_drone'; mission: string }
  | { action: 'escalate_to'; parties: readonly string[] }
  | { action: 'lock_gates'; gates: readonly string[] }
  | { action: 'log_event' }
  | { action: 'close_incident' };

/** The zone alert rule an event matched: which trigger of which zone, its level and actions. */
export interface MatchedRule {
  zone: string;
  trigger: 'on_entry' | 'on_dwell' | 'on_exit';
  alert_level: AlertLevel;
  actions: readonly RuleAction[];
}

/** The incident the event joined (incidents/), as far as planning needs it. */
export interface IncidentContext {
  id: string;
  status: 'open' | 'acknowledged' | 'resolved';
  /** An open critical incident on the event's subject mutes lower-level notifications (inhibition). */
  inhibitsNotifications: boolean;
  /**
   * The notices (push, audio alarm, escalations; `kind:target`) already sent for this incident on events of
   * the event's type and zone since it was last opened, at the highest level sent: a repeat at that level
   * or lower is recorded muted, as a duplicate (noticesOf).
   */
  noticesSent?: ReadonlyMap<string, SentNotice>;
}

/** A notice sent for an incident: the action that sent it and its level. */
export interface SentNotice {
  id: string;
  level: AlertLevel;
}

/** The actions that tell people (not the dashboard flag, which is per event): the ones a repeat must not send twice. */
export function isNotice(kind: ActionKind, target: string): boolean {
  return kind === 'escalate' || (kind === 'notify' && target !== 'dashboard');
}

/** The notices of recorded actions, by `kind:target`, at the highest level of each (an earlier batch's or this one's). */
export function noticesOf(actions: Iterable<Pick<PlannedAction, 'id' | 'kind' | 'target' | 'level' | 'muted'>>, into = new Map<string, SentNotice>()): Map<string, SentNotice> {
  for (const a of actions) {
    if (a.muted || !isNotice(a.kind, a.target)) continue;
    const key = `${a.kind}:${a.target}`;
    const known = into.get(key);
    if (known === undefined || rank(a.level) > rank(known.level)) into.set(key, { id: a.id, level: a.level });
  }
  return into;
}

export type ActionKind = 'notify' | 'escalate' | 'lock_gate' | 'dispatch_drone' | 'close_incident';

/** Why an action exists: the rule that asked for it, the level's default behaviour, the dwell ladder, or an unacknowledged incident. */
export type ActionSource = 'rule' | 'level' | 'ladder' | 'ack_timeout' | 'fleet';

export interface PlannedAction {
  /** sha256 of `${event_id}:${kind}:${target}`, hex: the same cause always plans the same id. */
  id: string;
  kind: ActionKind;
  /** notify: the channel (dashboard, push, audio_alarm); escalate: the party id; lock_gate: the gate id; dispatch_drone: the mission kind; close_incident: the incident id. */
  target: string;
  event_id: string;
  incident_id: string | null;
  level: AlertLevel;
  source: ActionSource;
  /** `zone:<name>:<trigger>` for rule actions, `level:<level>` for defaults, `ladder:<action>` for the dwell ladder. */
  reason: string;
  /** notify: the operator the event is assigned to; dispatch_drone: `priority` (automatic | immediate). */
  params: Record<string, string>;
  /** Muted by an open critical incident on the same subject, or a repeat of a notice sent (params.duplicate_of): recorded, not delivered. */
  muted: boolean;
}

export interface PlanInput {
  event: SecurityEvent;
  rule: MatchedRule | undefined;
  config: SystemConfig;
  incident: IncidentContext | undefined;
}

/** The mission a level's automatic or immediate dispatch flies when no rule names one. */
export const DEFAULT_MISSION = 'inspect';

const rank = (level: AlertLevel) => ALERT_LEVELS.indexOf(level);

/** The level an event is handled at: its zone rule's when it matched one, else its own severity. */
export function levelOf(event: SecurityEvent, rule: MatchedRule | undefined): AlertLevel {
  return rule?.alert_level ?? event.severity;
}

export function actionId(eventId: string, kind: ActionKind, target: string): string {
  return createHash('sha256').update(`${eventId}:${kind}:${target}`).digest('hex');
}

/**
 * The actions for one event. The level's default behaviour is the floor; a rule's explicit actions add to
 * it (to get less, give the rule a lower alert_level: `info` logs only). One action per (kind, target):
 * where a rule and the defaults both ask for one, the rule's parameters win (its mission, its assignee).
 * A notice the incident already sent for an event of this type and zone, at this level or higher, is not
 * sent again (a vessel flapping across a zone edge pages nobody twice); the dashboard flag, locks and
 * drones are per event.
 */
export function planActions({ event, rule, config, incident }: PlanInput): PlannedAction[] {
  const level = levelOf(event, rule);
  const behaviour: LevelBehaviour = config.alert_levels[level];
  const planned = new Map<string, PlannedAction>();
  const muted = incident?.inhibitsNotifications === true && rank(level) < rank('critical');
  const add = (kind: ActionKind, target: string, source: ActionSource, reason: string, params: Record<string, string> = {}) => {
    const key = `${kind}:${target}`;
    const earlier = planned.get(key);
    if (earlier !== undefined) {
      if (source === 'rule') Object.assign(earlier.params, params);
      return;
    }
    const sent = isNotice(kind, target) ? incident?.noticesSent?.get(key) : undefined;
    const repeat = sent !== undefined && rank(sent.level) >= rank(level);
    planned.set(key, {
      id: actionId(event.id, kind, target), kind, target, event_id: event.id, incident_id: incident?.id ?? null, level, source, reason,
      params: repeat ? { ...params, duplicate_of: sent.id } : params,
      muted: repeat || (muted && (kind === 'notify' || kind === 'escalate')),
    });
  };

  // Explicit actions first, so their parameters are the ones kept.
  const ruleReason = rule === undefined ? '' : `zone:${rule.zone}:${rule.trigger}`;
  for (const a of rule?.actions ?? []) {
    switch (a.action) {
      case 'notify_operator':
        add('notify', 'dashboard', 'rule', ruleReason, a.assign_to === undefined ? {} : { assign_to: a.assign_to });
        break;
      case 'escalate_to':
        for (const party of a.parties) add('escalate', party, 'rule', ruleReason);
        break;
      case 'lock_gates':
        for (const gate of a.gates) add('lock_gate', gate, 'rule', ruleReason);
        break;
      case 'dispatch_drone':
        add('dispatch_drone', a.mission, 'rule', ruleReason, { priority: behaviour.drone_dispatch === 'immediate' ? 'immediate' : 'automatic' });
        break;
      case 'close_incident':
        if (incident !== undefined && incident.status !== 'resolved') add('close_incident', incident.id, 'rule', ruleReason);
        break;
      case 'log_event':
        break; // every event is stored; nothing more to do
    }
  }

  // The dwell ladder (dwell_time.escalation) runs through escalate_to.
  const ladder = event.type === 'dwell_escalation' ? (event.metadata as { action?: EscalationAction }).action : undefined;
  if (ladder !== undefined && DWELL_LADDER_PARTIES[ladder] !== undefined) add('escalate', DWELL_LADDER_PARTIES[ladder], 'ladder', `ladder:${ladder}`);

  const levelReason = `level:${level}`;
  for (const channel of behaviour.notify) add('notify', channel, 'level', levelReason);
  const parties = behaviour.escalation === 'supervisor' ? config.escalation_order.slice(0, 1) : behaviour.escalation === 'all_stakeholders' ? config.escalation_order : [];
  for (const party of parties) add('escalate', party, 'level', levelReason);
  // `optional` is offered to the operator with the notification (a dispatch they may start), not flown.
  const hasRuleMission = [...planned.values()].some((a) => a.kind === 'dispatch_drone');
  // A drone's own event (lost link, low battery) never sends another drone by the level's default.
  if (!hasRuleMission && event.category !== 'drone' && (behaviour.drone_dispatch === 'automatic' || behaviour.drone_dispatch === 'immediate')) {
    add('dispatch_drone', DEFAULT_MISSION, 'level', levelReason, { priority: behaviour.drone_dispatch });
  }
  return [...planned.values()];
}
