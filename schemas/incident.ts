import type { FromSchema } from 'json-schema-to-ts';
import { pageQueryProperties } from './common.ts';
import { EVENT_SEVERITIES, securityEventSchema } from './event.ts';
import { SORT_ORDERS } from './event-api.ts';

/** Issue 23 (docs/response.md "Incidents"): open -> acknowledged -> resolved; open -> resolved; resolved -> open (reopen window). */
export const INCIDENT_STATUSES = ['open', 'acknowledged', 'resolved'] as const;
export type IncidentStatus = (typeof INCIDENT_STATUSES)[number];

const time = { type: 'string', format: 'date-time' } as const;
const nullableTime = { type: ['string', 'null'], format: 'date-time' } as const;
const nullableText = { type: ['string', 'null'] } as const;

/**
 * An incident: events grouped under one key over the port's entities (incidents/grouping.ts), its state
 * (incidents/incident-state.ts) and what operators did with it. The subject fields hold the first value of
 * each entity seen among its events.
 */
export const incidentSchema = {
  $id: 'https://pss.local/schemas/incident.json',
  type: 'object',
  additionalProperties: false,
  required: [
    'id', 'key', 'reason', 'status', 'severity', 'title', 'mmsi', 'zone', 'zone_id', 'gate_id', 'container_id', 'plate', 'location',
    'opening_event_id', 'event_count', 'first_event_at', 'last_event_at', 'opened_at', 'acknowledged_at', 'acknowledged_by',
    'resolved_at', 'resolved_by', 'resolution_reason', 'assigned_to', 'escalation_step', 'next_escalation_at', 'reopen_count',
    'merged_into', 'notes', 'revision', 'updated_at',
  ],
  properties: {
    id: { type: 'string', pattern: '^inc_[0-9a-f]{32}$' },
    key: { type: 'string', description: 'The grouping key, e.g. vessel:219592000, container:MSCU1234565, zone:north fence.' },
    reason: { type: 'string', description: 'Why the opening event got this key, in words.' },
    status: { type: 'string', enum: INCIDENT_STATUSES },
    severity: { type: 'string', enum: EVENT_SEVERITIES, description: 'The highest severity of its events.' },
    title: { type: 'string', description: 'The opening event\'s title.' },
    mmsi: { type: ['integer', 'null'] },
    zone: nullableText,
    zone_id: nullableText,
    gate_id: nullableText,
    container_id: nullableText,
    plate: nullableText,
    location: securityEventSchema.properties.location,
    opening_event_id: { type: 'string' },
    event_count: { type: 'integer', minimum: 0 },
    first_event_at: time,
    last_event_at: time,
    opened_at: time,
    acknowledged_at: nullableTime,
    acknowledged_by: nullableText,
    resolved_at: nullableTime,
    resolved_by: nullableText,
    resolution_reason: nullableText,
    assigned_to: { type: 'string', description: 'Operator identifier; "" while unassigned (as on events).' },
    escalation_step: { type: 'integer', minimum: 0, description: 'Acknowledgement timeouts passed so far: step n escalates to the n-th party of the escalation order.' },
    next_escalation_at: { ...nullableTime, description: 'When the next step is due if nobody acknowledges; null when none is.' },
    reopen_count: { type: 'integer', minimum: 0 },
    merged_into: { ...nullableText, description: 'The incident this one was merged into (it is then resolved).' },
    notes: {
      type: 'array',
      items: { type: 'object', additionalProperties: false, required: ['at', 'by', 'text'], properties: { at: time, by: { type: 'string' }, text: { type: 'string' } } },
    },
    revision: { type: 'integer', minimum: 1, description: 'Changes so far, the opening included.' },
    updated_at: time,
  },
} as const;
export type Incident = FromSchema<typeof incidentSchema>;

/** One change of an incident, as incident_changes keeps it. */
export const incidentChangeSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['revision', 'at', 'action', 'by', 'by_kind', 'event_id', 'before', 'after'],
  properties: {
    revision: { type: 'integer', minimum: 1 },
    at: time,
    action: { type: 'string', description: 'opened, event_attached, reopened, assigned, acknowledged, note_added, resolved, escalated, escalation_ended (the order had no party left), merged, merged_from' },
    by: { type: 'string', description: 'The API key\'s name or the operator\'s username; for the service\'s own changes, the part that made it.' },
    by_kind: { type: 'string', enum: ['api_key', 'oauth', 'system'] },
    event_id: { ...nullableText, description: 'The event attached by this change, if any.' },
    before: { type: 'object', description: 'The fields this change changed, before.' },
    after: { type: 'object', description: 'The same fields after.' },
  },
} as const;
export type IncidentChange = FromSchema<typeof incidentChangeSchema>;

/** The response loop's action kinds, sources and states (response/planner.ts, response/action-log.ts; docs/response.md "Responding to alerts"). */
export const RESPONSE_ACTION_KINDS = ['notify', 'escalate', 'lock_gate', 'dispatch_drone', 'close_incident'] as const;
export const RESPONSE_ACTION_SOURCES = ['rule', 'level', 'ladder', 'ack_timeout', 'fleet'] as const;
export const RESPONSE_ACTION_STATUSES = ['pending', 'done', 'muted', 'failed', 'given_up', 'waiting_fleet'] as const;
const actionStatus = { type: 'string', enum: RESPONSE_ACTION_STATUSES, description: 'pending -> done; muted (an open critical incident inhibits it: recorded, not delivered); waiting_fleet (a drone mission); failed -> retried, given_up after the last retry.' } as const;

/** One action of the response loop's log, as GET /v1/incidents/{id} shows it. */
export const responseActionSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'kind', 'target', 'event_id', 'incident_id', 'level', 'source', 'reason', 'params', 'status', 'attempts', 'result', 'last_error', 'created_at', 'done_at'],
  properties: {
    id: { type: 'string', description: 'SHA-256 of event_id:kind:target (hex): the same cause always plans the same id.' },
    kind: { type: 'string', enum: RESPONSE_ACTION_KINDS },
    target: { type: 'string', description: 'notify: the channel; escalate: the party; lock_gate: the gate; dispatch_drone: the mission kind; close_incident: the incident.' },
    event_id: { type: 'string', description: 'The event it answers (an unacknowledged incident\'s escalation answers its incident_escalated event).' },
    incident_id: nullableText,
    level: { type: 'string', description: 'The alert level it was planned at.' },
    source: { type: 'string', enum: RESPONSE_ACTION_SOURCES },
    reason: { type: 'string', description: 'zone:<name>:<trigger>, level:<level>, ladder:<action> or ack_timeout:step <n>.' },
    params: { type: 'object', additionalProperties: { type: 'string' }, description: 'notify: assign_to; dispatch_drone: priority; escalate (ack timeout): escalation_event_id.' },
    status: actionStatus,
    attempts: { type: 'integer', minimum: 0 },
    result: { type: ['object', 'null'], description: 'What the executor did (a command id, an event id, webhook ids, ...); null until done.' },
    last_error: nullableText,
    created_at: time,
    done_at: nullableTime,
  },
} as const;
export type ResponseAction = FromSchema<typeof responseActionSchema>;

/** A notify action, as an operator reads it: which channel, for which event, whose it is, done or not. */
export const incidentNotificationSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['action_id', 'event_id', 'channel', 'status', 'assigned_to', 'webhook_ids', 'at'],
  properties: {
    action_id: { type: 'string' },
    event_id: { type: 'string' },
    channel: { type: 'string', description: 'dashboard, push or audio_alarm (docs/response.md "Responding to alerts").' },
    status: actionStatus,
    assigned_to: { ...nullableText, description: 'The operator the event was assigned to by the rule\'s notify_operator, if any.' },
    webhook_ids: { type: 'array', items: { type: 'string' }, description: 'push: the webhooks the event was queued for delivery to; empty for the other channels.' },
    at: { ...time, description: 'When it was done (or muted); while pending, when it was planned.' },
  },
} as const;
export type IncidentNotification = FromSchema<typeof incidentNotificationSchema>;

/** An escalate action: the party, why, and where the escalation went. */
export const incidentEscalationSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['action_id', 'event_id', 'party', 'source', 'reason', 'status', 'escalation_event_id', 'webhook_ids', 'deliveries', 'at'],
  properties: {
    action_id: { type: 'string' },
    event_id: { type: 'string', description: 'The event it answers.' },
    party: { type: 'string', description: 'A party id of the system configuration.' },
    source: { type: 'string', enum: RESPONSE_ACTION_SOURCES, description: 'rule (escalate_to), level (the level\'s escalation), ladder (dwell ladder), ack_timeout (nobody acknowledged), fleet (a drone mission found no drone, timed out or was refused).' },
    reason: { type: 'string' },
    status: actionStatus,
    escalation_event_id: { ...nullableText, description: 'The incident_escalated event delivered to the party; null until done.' },
    webhook_ids: { type: 'array', items: { type: 'string' }, description: 'The party\'s receivers (its active webhooks) the escalation was queued for delivery to (signed; their outcome in GET /v1/webhooks/{id}/deliveries); empty until done.' },
    deliveries: { type: ['integer', 'null'], minimum: 0, description: 'Once done: how many deliveries of the escalation were queued to the party\'s receivers. 0: the party had no receiver and nobody was told (GET /v1/system/health names it: escalation_party:<id> degraded). null while not done (pending, failed, muted, given up).' },
    at: { ...time, description: 'When it was done (or muted); while pending, when it was planned.' },
  },
} as const;
export type IncidentEscalation = FromSchema<typeof incidentEscalationSchema>;

/** GET /v1/incidents/{id}: the incident, its events and timeline; the response loop's records beside them. */
export const incidentDetailSchema = {
  type: 'object',
  required: [...incidentSchema.required, 'events', 'events_total', 'timeline', 'actions', 'notifications', 'escalations'],
  properties: {
    ...incidentSchema.properties,
    events: { type: 'array', items: securityEventSchema, description: 'The events grouped in it as operators see them, oldest first, at most 200 (GET /v1/events?incident_id= pages through all, with its own incident_* events, which carry its id too).' },
    events_total: { type: 'integer', minimum: 0 },
    timeline: { type: 'array', items: incidentChangeSchema, description: 'Every change, oldest first.' },
    actions: { type: 'array', items: responseActionSchema, description: 'Every action the response loop planned with this incident\'s id, oldest first (those of an incident merged into it stay with that one).' },
    notifications: { type: 'array', items: incidentNotificationSchema, description: 'Its notify actions, oldest first.' },
    escalations: { type: 'array', items: incidentEscalationSchema, description: 'Its escalate actions, oldest first.' },
  },
} as const;

/** PATCH /v1/incidents/{id}: what operators change; the fields present are applied in this order. */
export const incidentPatchSchema = {
  $id: 'https://pss.local/schemas/incident-patch.json',
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    assigned_to: { type: 'string', maxLength: 128, description: 'Operator identifier; "" unassigns.' },
    status: { type: 'string', enum: ['acknowledged', 'resolved'], description: 'acknowledged stops the escalation; resolved needs resolution_reason.' },
    note: { type: 'string', minLength: 1, maxLength: 4000, description: 'Appended to the notes with who and when.' },
    resolution_reason: { type: 'string', minLength: 1, maxLength: 1000, description: 'Required with status resolved, and only with it.' },
  },
} as const;
export type IncidentPatch = FromSchema<typeof incidentPatchSchema>;

export const incidentMergeSchema = {
  $id: 'https://pss.local/schemas/incident-merge.json',
  type: 'object',
  additionalProperties: false,
  required: ['into'],
  properties: { into: { type: 'string', minLength: 1, maxLength: 64, description: 'The incident that takes over this one\'s events; it must not be resolved.' } },
} as const;
export type IncidentMerge = FromSchema<typeof incidentMergeSchema>;

export const INCIDENT_SORTS = ['opened_at', 'severity'] as const;

/** GET /v1/incidents; lists and dates are text here, read by incidents/incident-filter.ts (as for events). */
export const incidentListQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { type: 'string', minLength: 1, maxLength: 100, description: `Comma-separated: ${INCIDENT_STATUSES.join(', ')}.` },
    severity: { type: 'string', minLength: 1, maxLength: 200, description: `Comma-separated: ${EVENT_SEVERITIES.join(', ')}.` },
    zone: { type: 'string', minLength: 1, maxLength: 128, description: 'A zone name (case-insensitive) or a threat zone id.' },
    mmsi: { type: 'integer', minimum: 0, maximum: 1073741823 },
    gate: { type: 'string', minLength: 1, maxLength: 64 },
    container: { type: 'string', minLength: 1, maxLength: 64, description: 'Compared as grouping stores it: upper case, without spaces, dashes and dots.' },
    plate: { type: 'string', minLength: 1, maxLength: 64, description: 'Compared as grouping stores it: upper case, without spaces, dashes and dots.' },
    start_date: { type: 'string', minLength: 1, maxLength: 40, description: 'Opened at or after (ISO 8601; UTC when no offset). No default: every incident.' },
    end_date: { type: 'string', minLength: 1, maxLength: 40, description: 'Opened at or before (ISO 8601; UTC when no offset). No default.' },
    sort: { type: 'string', enum: INCIDENT_SORTS, default: 'opened_at', description: 'severity: critical first, ties by opening time.' },
    order: { type: 'string', enum: SORT_ORDERS, default: 'desc' },
    ...pageQueryProperties,
  },
} as const;
export type IncidentListQuery = FromSchema<typeof incidentListQuerySchema>;
