// Incidents' entry points, each in the caller's transaction; the caller wakes the relay (ctx.relay.wake())
// once it has committed, as for any stored event. The decisions are pure (grouping.ts, incident-state.ts,
// incident-events.ts); this file loads, locks, saves and audits.
import { AppError } from '../platform/errors.ts';
import type { PoolClient } from '../platform/postgres.ts';
import { readEvent } from '../events/queries.ts';
import { storeEvents } from '../events/store.ts';
import { changeEventIn, type Operator } from '../events/triage.ts';
import type { SecurityEvent } from '../schemas/event.ts';
import type { Incident, IncidentPatch } from '../schemas/incident.ts';
import { entitiesOf, groupingOf, lookupsOf, vesselNumber, type Entities, type VesselLinks } from './grouping.ts';
import { INCIDENT_EVENT_TYPES, incidentAcknowledged, incidentCreated, incidentEscalated, incidentResolved, isIncidentEvent } from './incident-events.ts';
import { followMerges, insertIncident, newestOfKey, readIncident, recordChange, updateIncident } from './incident-rows.ts';
import * as state from './incident-state.ts';

/** The service as the author of its own changes (incident_changes and event_changes say `system`). */
export const GROUPING: Operator = { credentialId: 'system', principal: 'incidents.grouping', kind: 'system' };
const ESCALATION: Operator = { credentialId: 'system', principal: 'incidents.escalation', kind: 'system' };

export interface AttachSettings extends state.IncidentWindows {
  /**
   * Acknowledgement timeout per severity (the system configuration's alert_levels[level].ack_timeout_minutes);
   * absent: no escalation is scheduled. An addition to the design's seam, optional so callers without it compile.
   */
  ackTimeoutMinutes?: state.AckTimeouts;
}

export interface AttachResult {
  /** The incident the event belongs to now (after any merge). */
  incident: Incident;
  created: boolean;
  reopened: boolean;
  /** False when the event was attached before (a replay): nothing was written. */
  attached: boolean;
}

/**
 * Attaches a stored event to its incident: the one its operators named (incident_id naming an incident),
 * else the newest of its grouping key when placement() says so, else a new one. Sets the event's incident_id
 * through the operators' path (events/triage.ts: a revision, published again as updated), stores
 * incident_created for a new incident, and audits the change. Attaching an event again changes nothing.
 * Undefined for the incidents' own events (incident_*), which are about an incident, not grouped.
 */
export async function attachEvent(client: PoolClient, event: SecurityEvent, settings: AttachSettings, now: Date): Promise<AttachResult | undefined> {
  if (isIncidentEvent(event)) return undefined;
  const grouping = groupingOf(event, await vesselLinks(client, entitiesOf(event)));
  // One key's events are placed one at a time, so two of them never open two incidents.
  await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`incident:${grouping.key}`]);
  const before = await attachedIncident(client, event.id);
  if (before !== undefined) return { incident: await followMerges(client, before), created: false, reopened: false, attached: false };
  const stored = await readEvent(client, event.id);
  if (stored === undefined) throw new AppError('internal_error', `event ${event.id} is not stored; only stored events are attached to incidents`);

  const named = stored.incident_id === null ? undefined : await readIncident(client, stored.incident_id, true);
  const candidate = named ?? (await newestOfKey(client, grouping.key));
  const current = candidate === undefined ? undefined : await followMerges(client, candidate);
  const place = named !== undefined ? (current?.status === 'resolved' ? 'reopen' : 'join') : state.placement(current, event.timestamp, settings);
  const timeouts = settings.ackTimeoutMinutes ?? {};

  let incident: Incident;
  let created = false;
  if (place === 'new' || current === undefined) {
    incident = state.openIncident(grouping, event, timeouts, now);
    created = await insertIncident(client, incident);
    if (created) {
      await recordChange(client, incident.id, incident.revision, { action: 'opened', by: GROUPING, at: now, eventId: event.id, before: {}, after: { key: incident.key, reason: incident.reason, status: incident.status, severity: incident.severity } });
    } else {
      // Its events were deleted (retention) and one of them is attached again: the incident is there already.
      incident = await joinAndSave(client, (await readIncident(client, incident.id, true)) as Incident, event, grouping.subject, timeouts, now, 'event_attached');
    }
  } else {
    incident = await joinAndSave(client, current, event, grouping.subject, timeouts, now, place === 'reopen' ? 'reopened' : 'event_attached');
  }
  await client.query('INSERT INTO incident_events (event_id, incident_id, attached_at) VALUES ($1, $2, $3)', [event.id, incident.id, now]);
  await changeEventIn(client, event.id, { incident_id: incident.id }, GROUPING);
  if (created) await storeEvents(client, [incidentCreated(incident, now)]);
  return { incident, created, reopened: place === 'reopen' && !created, attached: true };
}

async function joinAndSave(client: PoolClient, current: Incident, event: SecurityEvent, subject: ReturnType<typeof groupingOf>['subject'], timeouts: state.AckTimeouts, now: Date, action: 'event_attached' | 'reopened'): Promise<Incident> {
  const next = action === 'reopened' ? state.reopenIncident(current, event, subject, timeouts, now) : state.joinEvent(current, event, subject, timeouts, now);
  await updateIncident(client, next);
  await recordChange(client, next.id, next.revision, { action, by: GROUPING, at: now, eventId: event.id, ...state.changedFields(current, next) });
  return next;
}

async function attachedIncident(client: PoolClient, eventId: string): Promise<Incident | undefined> {
  const { rows } = await client.query<{ incident_id: string }>('SELECT incident_id FROM incident_events WHERE event_id = $1', [eventId]);
  return rows[0] === undefined ? undefined : readIncident(client, rows[0].incident_id, true);
}

/** What the event does not say about its vessel: its container's booking, the MMSI of an IMO. */
async function vesselLinks(client: PoolClient, entities: Entities): Promise<VesselLinks> {
  const need = lookupsOf(entities);
  const links: VesselLinks = {};
  if (need.bookingOfContainer !== undefined) {
    // Another producer may write gate.appointments directly: the values are checked here, not cast in SQL.
    const { rows } = await client.query<{ appointment_id: string; mmsi: unknown; imo: unknown }>(
      `SELECT appointment_id, body->'vessel_mmsi' AS mmsi, body->'vessel_imo' AS imo FROM gate_appointments
        WHERE regexp_replace(upper(body->>'container_id'), '[[:space:].-]', '', 'g') = $1 AND (body ? 'vessel_mmsi' OR body ? 'vessel_imo')
        ORDER BY updated_at DESC LIMIT 1`,
      [need.bookingOfContainer],
    );
    const row = rows[0];
    if (row) links.booking = { appointmentId: row.appointment_id, mmsi: vesselNumber(row.mmsi), imo: vesselNumber(row.imo) };
  }
  const imo = links.booking?.mmsi === undefined ? (need.imo ?? links.booking?.imo) : undefined;
  if (imo !== undefined) {
    const { rows } = await client.query<{ mmsi: number }>('SELECT mmsi FROM vessels WHERE imo = $1 ORDER BY last_report_at DESC NULLS LAST LIMIT 1', [imo]);
    if (rows[0]) links.mmsiOfImo = rows[0].mmsi;
  }
  return links;
}

export interface IncidentUpdate {
  incident: Incident;
  /** False when the change repeated what the incident already said: nothing was written. */
  changed: boolean;
  /** The incident_* events stored with the change. */
  events: SecurityEvent[];
}

type Step = { action: string; apply: (incident: Incident) => Incident; announce?: (incident: Incident, now: Date) => SecurityEvent };

/**
 * PATCH /v1/incidents/{id}: the fields present, applied in the order assign, acknowledge, note, resolve;
 * each change that changes something is one audited revision. Throws not_found and resource_conflict.
 */
export async function changeIncident(client: PoolClient, id: string, patch: IncidentPatch, by: Operator, now: Date): Promise<IncidentUpdate> {
  const steps: Step[] = [];
  if (patch.assigned_to !== undefined) steps.push({ action: 'assigned', apply: (i) => state.assign(i, patch.assigned_to as string, now) });
  if (patch.status === 'acknowledged') steps.push({ action: 'acknowledged', apply: (i) => state.acknowledge(i, by.principal, now), announce: incidentAcknowledged });
  if (patch.note !== undefined) steps.push({ action: 'note_added', apply: (i) => state.addNote(i, by.principal, patch.note as string, now) });
  if (patch.status === 'resolved') {
    if (patch.resolution_reason === undefined) throw new AppError('validation_error', 'status resolved needs a resolution_reason', [{ location: 'body', path: '/resolution_reason', message: 'is required with status resolved' }]);
    steps.push({ action: 'resolved', apply: (i) => state.resolve(i, by.principal, patch.resolution_reason as string, now), announce: incidentResolved });
  }
  return applySteps(client, id, steps, by, now);
}

export const acknowledge = (client: PoolClient, id: string, by: Operator, now: Date) => changeIncident(client, id, { status: 'acknowledged' }, by, now);
export const assign = (client: PoolClient, id: string, to: string, by: Operator, now: Date) => changeIncident(client, id, { assigned_to: to }, by, now);
/** Also the response loop's close_incident (by the service: an Operator of kind system). */
export const resolve = (client: PoolClient, id: string, reason: string, by: Operator, now: Date) => changeIncident(client, id, { status: 'resolved', resolution_reason: reason }, by, now);
export const addNote = (client: PoolClient, id: string, text: string, by: Operator, now: Date) => changeIncident(client, id, { note: text }, by, now);

async function applySteps(client: PoolClient, id: string, steps: Step[], by: Operator, now: Date): Promise<IncidentUpdate> {
  const start = await readIncident(client, id, true);
  if (start === undefined) throw new AppError('not_found', `Incident ${id} does not exist`);
  let incident = start;
  const events: SecurityEvent[] = [];
  for (const step of steps) {
    const next = step.apply(incident);
    if (next === incident) continue;
    await recordChange(client, id, next.revision, { action: step.action, by, at: now, ...state.changedFields(incident, next) });
    if (step.announce) events.push(step.announce(next, now));
    incident = next;
  }
  if (incident === start) return { incident, changed: false, events: [] };
  await updateIncident(client, incident);
  await storeEvents(client, events);
  return { incident, changed: true, events };
}

/**
 * POST /v1/incidents/{id}/merge: `sourceId`'s events (their incident_id, through the operators' path, and
 * their attachment) move to `targetId`, which takes its counts and severity; the source is resolved,
 * merged_into the target (incident_resolved is stored unless it was resolved already).
 */
export async function merge(client: PoolClient, sourceId: string, targetId: string, by: Operator, now: Date): Promise<{ source: Incident; target: Incident; events: SecurityEvent[] }> {
  // Both rows in id order, so two merges of the same pair never wait on each other crosswise.
  const locked = new Map<string, Incident>();
  for (const id of [sourceId, targetId].sort()) {
    const incident = await readIncident(client, id, true);
    if (incident) locked.set(id, incident);
  }
  const source = locked.get(sourceId);
  const target = locked.get(targetId);
  if (source === undefined) throw new AppError('not_found', `Incident ${sourceId} does not exist`);
  if (target === undefined) throw new AppError('validation_error', `Incident ${targetId} does not exist`, [{ location: 'body', path: '/into', message: 'no incident has this id' }]);
  const after = state.mergeInto(source, target, by.principal, now);

  await client.query('UPDATE incident_events SET incident_id = $2 WHERE incident_id = $1', [sourceId, targetId]);
  const { rows } = await client.query<{ id: string }>(
    // Its grouped events; its own incident_* events stay with it (they are about the source).
    `SELECT id FROM security_events_current WHERE incident_id = $1 AND type <> ALL($2::text[])
        AND id IN (SELECT id FROM security_events WHERE incident_id = $1 UNION ALL SELECT event_id FROM event_triage WHERE incident_id = $1)
      ORDER BY occurred_at, id`,
    [sourceId, INCIDENT_EVENT_TYPES],
  );
  for (const { id } of rows) await changeEventIn(client, id, { incident_id: targetId }, by);

  await updateIncident(client, after.source);
  await updateIncident(client, after.target);
  await recordChange(client, sourceId, after.source.revision, { action: 'merged', by, at: now, ...state.changedFields(source, after.source) });
  const gained = state.changedFields(target, after.target);
  await recordChange(client, targetId, after.target.revision, { action: 'merged_from', by, at: now, before: gained.before, after: { ...gained.after, merged_from: sourceId } });
  const events = source.status === 'resolved' ? [] : [incidentResolved(after.source, now)];
  await storeEvents(client, events);
  return { ...after, events };
}

export interface EscalationSettings {
  ackTimeoutMinutes: state.AckTimeouts;
  /** How many parties the escalation order has: step n goes to the n-th; none beyond the last. */
  escalationSteps: number;
  /** Most incidents escalated per call (the sweep calls again while it gets this many). */
  limit?: number;
}

/**
 * The acknowledgement-timeout sweep: open incidents whose next_escalation_at has come, claimed with
 * SKIP LOCKED (instances sweeping together never escalate one twice), each moved one step up with its
 * incident_escalated event stored. Returns the escalated ones with their events, for the response loop.
 */
export async function dueEscalations(client: PoolClient, now: Date, settings: EscalationSettings): Promise<{ incident: Incident; event: SecurityEvent }[]> {
  const { rows } = await client.query<{ id: string }>(
    `SELECT id FROM incidents WHERE status = 'open' AND next_escalation_at IS NOT NULL AND next_escalation_at <= $1
      ORDER BY next_escalation_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
    [now, settings.limit ?? 100],
  );
  const out: { incident: Incident; event: SecurityEvent }[] = [];
  for (const { id } of rows) {
    const current = (await readIncident(client, id)) as Incident;
    const step = state.escalate(current, settings.ackTimeoutMinutes, settings.escalationSteps, now);
    if (step === undefined) continue;
    await updateIncident(client, step.incident);
    await recordChange(client, id, step.incident.revision, { action: step.escalated ? 'escalated' : 'escalation_ended', by: ESCALATION, at: now, ...state.changedFields(current, step.incident) });
    if (step.escalated) out.push({ incident: step.incident, event: incidentEscalated(step.incident, now) });
  }
  await storeEvents(client, out.map((o) => o.event));
  return out;
}
