// The incident state machine (issue 23, item 5; docs/response.md "Incidents"). Pure: time is passed in, nothing is
// loaded or saved (incidents/store.ts does that). Each change returns the incident after it with its
// revision counted, or the very same object when it changes nothing.
//
//   open ──acknowledge──> acknowledged ──resolve──> resolved
//     └──────────────────resolve──────────────────────^  │
//     ^───────── an event of its key within the reopen window (reopen) ─────┘
//
// An open incident nobody acknowledges escalates one step each acknowledgement timeout of its severity
// (step n goes to the n-th party of the escalation order; the response loop delivers it).
import { createHash } from 'node:crypto';
import { AppError } from '../platform/errors.ts';
import { EVENT_SEVERITIES, type EventSeverity, type SecurityEvent } from '../schemas/event.ts';
import type { Incident } from '../schemas/incident.ts';
import type { Grouping, Subject } from './grouping.ts';

/** The system configuration's incident windows (docs/response.md "Incidents"; Part B's `incidents` section). */
export interface IncidentWindows {
  /** An unresolved incident takes an event of its key this close to its events in time. */
  groupWindowMinutes: number;
  /** A resolved incident is reopened by an event of its key at most this long after its resolution. */
  reopenWindowMinutes: number;
}

/** Acknowledgement timeout in minutes per severity; null or absent: that severity does not escalate. */
export type AckTimeouts = Partial<Record<EventSeverity, number | null>>;

/** Notes kept on one incident at most (they live in its row). */
export const MAX_NOTES = 500;

const MINUTE = 60_000;
const ms = (iso: string) => Date.parse(iso);
const iso = (at: number) => new Date(at).toISOString();

/** inc_ + SHA-256 of the key and the opening event: a replay that opens it again finds the same id. */
export function incidentId(key: string, openingEventId: string): string {
  return `inc_${createHash('sha256').update(`${key}\n${openingEventId}`).digest('hex').slice(0, 32)}`;
}

export function severityRank(severity: EventSeverity): number {
  return EVENT_SEVERITIES.indexOf(severity);
}

export function maxSeverity(a: EventSeverity, b: EventSeverity): EventSeverity {
  return severityRank(a) >= severityRank(b) ? a : b;
}

/**
 * Inhibition (as Alertmanager's): while an incident is critical and not resolved, a notification for a
 * lower-severity event of it is muted; the event is still stored and attached.
 */
export function isInhibited(incident: Pick<Incident, 'status' | 'severity'>, eventSeverity: EventSeverity): boolean {
  return incident.status !== 'resolved' && incident.severity === 'critical' && severityRank(eventSeverity) < severityRank('critical');
}

export type Placement = 'join' | 'reopen' | 'new';

/**
 * Where an event of the candidate's key goes, by event time (so a replay decides alike): into an
 * unresolved incident when it is within the group window of its events; a resolved one is reopened when
 * the event comes at most the reopen window after the resolution; anything else opens a new incident.
 */
export function placement(candidate: Incident | undefined, eventAt: string, windows: IncidentWindows): Placement {
  if (candidate === undefined) return 'new';
  const at = ms(eventAt);
  if (candidate.status === 'resolved') {
    return candidate.resolved_at !== null && at <= ms(candidate.resolved_at) + windows.reopenWindowMinutes * MINUTE ? 'reopen' : 'new';
  }
  const group = windows.groupWindowMinutes * MINUTE;
  return at >= ms(candidate.first_event_at) - group && at <= ms(candidate.last_event_at) + group ? 'join' : 'new';
}

function deadline(severity: EventSeverity, timeouts: AckTimeouts, now: Date): string | null {
  const minutes = timeouts[severity];
  return minutes === undefined || minutes === null ? null : iso(now.getTime() + minutes * MINUTE);
}

const earlier = (a: string | null, b: string | null) => (a === null ? b : b === null ? a : ms(a) <= ms(b) ? a : b);

export function openIncident(grouping: Grouping, event: SecurityEvent, timeouts: AckTimeouts, now: Date): Incident {
  const at = now.toISOString();
  return {
    id: incidentId(grouping.key, event.id),
    key: grouping.key,
    reason: grouping.reason,
    status: 'open',
    severity: event.severity,
    title: event.title,
    ...grouping.subject,
    location: event.location,
    opening_event_id: event.id,
    event_count: 1,
    first_event_at: event.timestamp,
    last_event_at: event.timestamp,
    opened_at: at,
    acknowledged_at: null,
    acknowledged_by: null,
    resolved_at: null,
    resolved_by: null,
    resolution_reason: null,
    assigned_to: '',
    escalation_step: 0,
    next_escalation_at: deadline(event.severity, timeouts, now),
    reopen_count: 0,
    merged_into: null,
    notes: [],
    revision: 1,
    updated_at: at,
  };
}

/** Subject columns keep the first value seen; an event fills the ones still empty. */
function fillSubject(incident: Incident, subject: Subject): Subject {
  return {
    mmsi: incident.mmsi ?? subject.mmsi,
    zone: incident.zone ?? subject.zone,
    zone_id: incident.zone_id ?? subject.zone_id,
    gate_id: incident.gate_id ?? subject.gate_id,
    container_id: incident.container_id ?? subject.container_id,
    plate: incident.plate ?? subject.plate,
  };
}

function counted(incident: Incident, now: Date): Pick<Incident, 'revision' | 'updated_at'> {
  return { revision: incident.revision + 1, updated_at: now.toISOString() };
}

/**
 * An event joins: severity is the highest of its events; a severity whose timeout is shorter brings the
 * next escalation forward (never back). An acknowledged incident stays acknowledged.
 */
export function joinEvent(incident: Incident, event: SecurityEvent, subject: Subject, timeouts: AckTimeouts, now: Date): Incident {
  const severity = maxSeverity(incident.severity, event.severity);
  const raised = severity !== incident.severity && incident.status === 'open';
  return {
    ...incident,
    ...fillSubject(incident, subject),
    severity,
    event_count: incident.event_count + 1,
    first_event_at: ms(event.timestamp) < ms(incident.first_event_at) ? event.timestamp : incident.first_event_at,
    last_event_at: ms(event.timestamp) > ms(incident.last_event_at) ? event.timestamp : incident.last_event_at,
    next_escalation_at: raised ? earlier(incident.next_escalation_at, deadline(severity, timeouts, now)) : incident.next_escalation_at,
    ...counted(incident, now),
  };
}

/** A resolved incident taking an event again: open, unacknowledged, escalation from the first step. */
export function reopenIncident(incident: Incident, event: SecurityEvent, subject: Subject, timeouts: AckTimeouts, now: Date): Incident {
  const joined = joinEvent({ ...incident, status: 'open' }, event, subject, timeouts, now);
  return {
    ...joined,
    acknowledged_at: null,
    acknowledged_by: null,
    resolved_at: null,
    resolved_by: null,
    resolution_reason: null,
    escalation_step: 0,
    next_escalation_at: deadline(joined.severity, timeouts, now),
    reopen_count: incident.reopen_count + 1,
  };
}

function notMerged(incident: Incident): void {
  if (incident.merged_into !== null) throw new AppError('resource_conflict', `Incident ${incident.id} was merged into ${incident.merged_into}; change that one`);
}

/** Open -> acknowledged (stops the escalation); acknowledging again changes nothing; a resolved one is a conflict. */
export function acknowledge(incident: Incident, by: string, now: Date): Incident {
  notMerged(incident);
  if (incident.status === 'acknowledged') return incident;
  if (incident.status === 'resolved') throw new AppError('resource_conflict', `Incident ${incident.id} is resolved; it cannot be acknowledged`);
  return { ...incident, status: 'acknowledged', acknowledged_at: now.toISOString(), acknowledged_by: by, next_escalation_at: null, ...counted(incident, now) };
}

/** Any state: who owns it ("" unassigns). */
export function assign(incident: Incident, to: string, now: Date): Incident {
  notMerged(incident);
  return incident.assigned_to === to ? incident : { ...incident, assigned_to: to, ...counted(incident, now) };
}

/** Open or acknowledged -> resolved, with a reason; resolving a resolved incident changes nothing. */
export function resolve(incident: Incident, by: string, reason: string, now: Date): Incident {
  notMerged(incident);
  if (incident.status === 'resolved') return incident;
  return { ...incident, status: 'resolved', resolved_at: now.toISOString(), resolved_by: by, resolution_reason: reason, next_escalation_at: null, ...counted(incident, now) };
}

/** Any state, merged ones included (a post-mortem remark): a note with who and when. */
export function addNote(incident: Incident, by: string, text: string, now: Date): Incident {
  if (incident.notes.length >= MAX_NOTES) throw new AppError('resource_conflict', `Incident ${incident.id} has ${MAX_NOTES} notes, the most one can hold`);
  return { ...incident, notes: [...incident.notes, { at: now.toISOString(), by, text }], ...counted(incident, now) };
}

/**
 * The acknowledgement timeout: an open incident whose next_escalation_at has come moves one step up, and
 * the next step is scheduled while the escalation order has parties left. Undefined when it is not due.
 * `escalated` is false when the order was exhausted already: the deadline is only cleared.
 */
export function escalate(incident: Incident, timeouts: AckTimeouts, steps: number, now: Date): { incident: Incident; escalated: boolean } | undefined {
  if (incident.status !== 'open' || incident.next_escalation_at === null || ms(incident.next_escalation_at) > now.getTime()) return undefined;
  if (incident.escalation_step >= steps) return { incident: { ...incident, next_escalation_at: null, ...counted(incident, now) }, escalated: false };
  const step = incident.escalation_step + 1;
  const next = step < steps ? deadline(incident.severity, timeouts, now) : null;
  return { incident: { ...incident, escalation_step: step, next_escalation_at: next, ...counted(incident, now) }, escalated: true };
}

/**
 * `source` merged into `target`: the target takes its events (count, times, severity, empty subject
 * fields); the source is resolved, pointing at the target. The target must not be resolved.
 */
export function mergeInto(source: Incident, target: Incident, by: string, now: Date): { source: Incident; target: Incident } {
  if (source.id === target.id) throw new AppError('validation_error', 'An incident cannot be merged into itself', [{ location: 'body', path: '/into', message: 'must name another incident' }]);
  notMerged(source);
  if (target.merged_into !== null) throw new AppError('resource_conflict', `Incident ${target.id} was merged into ${target.merged_into}; merge into that one`);
  if (target.status === 'resolved') throw new AppError('resource_conflict', `Incident ${target.id} is resolved; merge into an open or acknowledged incident`);
  const severity = maxSeverity(target.severity, source.severity);
  const merged: Incident = {
    ...target,
    ...fillSubject(target, source),
    severity,
    event_count: target.event_count + source.event_count,
    first_event_at: ms(source.first_event_at) < ms(target.first_event_at) ? source.first_event_at : target.first_event_at,
    last_event_at: ms(source.last_event_at) > ms(target.last_event_at) ? source.last_event_at : target.last_event_at,
    ...counted(target, now),
  };
  const closed: Incident = {
    ...source,
    status: 'resolved',
    resolved_at: source.resolved_at ?? now.toISOString(),
    resolved_by: source.resolved_by ?? by,
    resolution_reason: source.resolution_reason ?? `merged into ${target.id}`,
    next_escalation_at: null,
    merged_into: target.id,
    event_count: 0,
    ...counted(source, now),
  };
  return { source: closed, target: merged };
}

/** The fields a change changed, before and after (the audit's `before` / `after`). */
export function changedFields(before: Incident, after: Incident): { before: Record<string, unknown>; after: Record<string, unknown> } {
  const out = { before: {} as Record<string, unknown>, after: {} as Record<string, unknown> };
  for (const field of Object.keys(after) as (keyof Incident)[]) {
    if (field === 'revision' || field === 'updated_at') continue;
    if (JSON.stringify(before[field]) !== JSON.stringify(after[field])) {
      out.before[field] = before[field];
      out.after[field] = after[field];
    }
  }
  return out;
}
