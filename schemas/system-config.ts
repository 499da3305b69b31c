import type { FromSchema } from 'json-schema-to-ts';
import { pageQueryProperties } from './common.ts';
import { ALERT_LEVELS, type AlertLevel, type EscalationAction } from './zone.ts';

/**
 * The system configuration (issue 23, item 2; `GET/PUT /v1/system/config`): what each alert level does by
 * default (spec "Alert levels (default behaviour)"), who the parties of an escalation are and how they
 * are reached, the gates an alert rule may lock, and the incident windows. One document, replaced whole.
 * Rules beyond these shapes (ids unique, parties and webhooks that exist, names still used by a zone's
 * alert_rules) are checked by response/settings/system-config-rules.ts in the same pass, so one 422 lists
 * every problem.
 */

/** Spec table column "Operator notification": `all channels` is every one of them. */
export const NOTIFY_CHANNELS = ['dashboard', 'push', 'audio_alarm'] as const;
export const DRONE_DISPATCH_MODES = ['none', 'optional', 'automatic', 'immediate'] as const;
/** `supervisor`: the first party of escalation_order; `all_stakeholders`: every party of it. */
export const ESCALATION_MODES = ['none', 'supervisor', 'all_stakeholders'] as const;

/** Bounds of the minute settings: a week for an acknowledgement, a day for the incident windows. */
export const SYSTEM_CONFIG_LIMITS = { maxAckTimeoutMinutes: 10_080, maxGroupWindowMinutes: 1_440, maxReopenWindowMinutes: 1_440, maxParties: 50, maxGates: 500, maxWebhookIds: 50 } as const;

const id = { type: 'string', minLength: 1, maxLength: 128 } as const;
/** Party ids appear in alert rules (`escalate_to`), so they are plain words: supervisor, port_authority. */
const partyId = { type: 'string', pattern: '^[a-z][a-z0-9_]{0,63}$' } as const;
const name = { type: 'string', minLength: 1, maxLength: 200 } as const;
const webhookIds = { type: 'array', maxItems: SYSTEM_CONFIG_LIMITS.maxWebhookIds, uniqueItems: true, items: id, description: 'Ids of webhooks (`/v1/webhooks`); deliveries are signed with each webhook\'s secret.' } as const;

const levelBehaviour = {
  type: 'object',
  additionalProperties: false,
  required: ['notify', 'drone_dispatch', 'escalation', 'log', 'ack_timeout_minutes'],
  properties: {
    notify: { type: 'array', maxItems: NOTIFY_CHANNELS.length, uniqueItems: true, items: { type: 'string', enum: NOTIFY_CHANNELS }, description: 'dashboard: the stream and requires_action; push: signed webhook deliveries to channels.push; audio_alarm: a flag the console sounds. [] = no notification.' },
    drone_dispatch: { type: 'string', enum: DRONE_DISPATCH_MODES },
    escalation: { type: 'string', enum: ESCALATION_MODES, description: 'supervisor: the first party of escalation_order; all_stakeholders: every party of it.' },
    log: { type: 'boolean', description: 'The event is logged (the spec: yes at every level).' },
    ack_timeout_minutes: { type: ['integer', 'null'], minimum: 1, maximum: SYSTEM_CONFIG_LIMITS.maxAckTimeoutMinutes, description: 'An incident of this level not acknowledged within this many minutes escalates to the next party; null: never.' },
  },
} as const;

const systemConfigShape = {
  type: 'object',
  additionalProperties: false,
  required: ['alert_levels', 'channels', 'parties', 'escalation_order', 'gates', 'incidents'],
  properties: {
    alert_levels: {
      type: 'object',
      additionalProperties: false,
      required: [...ALERT_LEVELS],
      properties: { info: levelBehaviour, low: levelBehaviour, medium: levelBehaviour, high: levelBehaviour, critical: levelBehaviour },
    },
    channels: {
      type: 'object',
      additionalProperties: false,
      required: ['push'],
      properties: { push: { type: 'object', additionalProperties: false, required: ['webhook_ids'], properties: { webhook_ids: webhookIds } } },
    },
    parties: {
      type: 'array',
      maxItems: SYSTEM_CONFIG_LIMITS.maxParties,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'name', 'webhook_ids', 'operator_groups'],
        properties: {
          id: partyId,
          name,
          webhook_ids: webhookIds,
          operator_groups: { type: 'array', maxItems: 20, uniqueItems: true, items: { type: 'string', minLength: 1, maxLength: 64 }, description: 'Operator groups the console shows the escalation to.' },
        },
      },
    },
    escalation_order: { type: 'array', maxItems: SYSTEM_CONFIG_LIMITS.maxParties, uniqueItems: true, items: partyId, description: 'Party ids, first to last: the steps of an escalation.' },
    gates: {
      type: 'array',
      maxItems: SYSTEM_CONFIG_LIMITS.maxGates,
      items: { type: 'object', additionalProperties: false, required: ['id', 'name'], properties: { id: { ...id, description: 'The gate id of gate readings and gate.commands' }, name } },
      description: 'The gates an alert rule may lock (lock_gates).',
    },
    incidents: {
      type: 'object',
      additionalProperties: false,
      required: ['group_window_minutes', 'reopen_window_minutes'],
      properties: {
        group_window_minutes: { type: 'integer', minimum: 1, maximum: SYSTEM_CONFIG_LIMITS.maxGroupWindowMinutes, description: 'Events of one subject this close together join one incident.' },
        reopen_window_minutes: { type: 'integer', minimum: 0, maximum: SYSTEM_CONFIG_LIMITS.maxReopenWindowMinutes, description: 'A resolved incident whose subject alerts again within this many minutes is reopened; 0: never.' },
      },
    },
  },
} as const;

export const systemConfigSchema = { $id: 'https://pss.local/schemas/system-config.json', ...systemConfigShape } as const;
export type SystemConfig = FromSchema<typeof systemConfigSchema>;
export type LevelBehaviour = SystemConfig['alert_levels'][AlertLevel];
export type NotifyChannel = (typeof NOTIFY_CHANNELS)[number];

/** The party each rung of a dwell ladder (`dwell_time.escalation`) escalates to (issue 23: the ladder runs through escalate_to). */
export const DWELL_LADDER_PARTIES: Readonly<Record<EscalationAction, string>> = {
  notify_supervisor: 'supervisor',
  escalate_to_port_authority: 'port_authority',
  escalate_to_coast_guard: 'coast_guard',
};

const party = (id: string, name: string, operatorGroups: string[]) => ({ id, name, webhook_ids: [], operator_groups: operatorGroups });

/**
 * The shipped configuration: the spec's alert-level table row by row ("all channels" = dashboard, push and
 * audio alarm), the three parties the dwell ladder names, and no gates (a site adds its own).
 */
export const DEFAULT_SYSTEM_CONFIG: SystemConfig = {
  alert_levels: {
    info: { notify: [], drone_dispatch: 'none', escalation: 'none', log: true, ack_timeout_minutes: null },
    low: { notify: ['dashboard'], drone_dispatch: 'none', escalation: 'none', log: true, ack_timeout_minutes: null },
    medium: { notify: ['push'], drone_dispatch: 'optional', escalation: 'none', log: true, ack_timeout_minutes: 30 },
    high: { notify: ['push', 'audio_alarm'], drone_dispatch: 'automatic', escalation: 'supervisor', log: true, ack_timeout_minutes: 10 },
    critical: { notify: ['dashboard', 'push', 'audio_alarm'], drone_dispatch: 'immediate', escalation: 'all_stakeholders', log: true, ack_timeout_minutes: 5 },
  },
  channels: { push: { webhook_ids: [] } },
  parties: [
    party('supervisor', 'Shift supervisor', ['supervisors']),
    party('port_authority', 'Port authority', ['port_authority']),
    party('coast_guard', 'Coast guard', ['coast_guard']),
  ],
  escalation_order: ['supervisor', 'port_authority', 'coast_guard'],
  gates: [],
  incidents: { group_window_minutes: 60, reopen_window_minutes: 30 },
};

/**
 * PUT /v1/system/config's answer: the document as stored in `data` (the spec's body, unchanged) and beside
 * it what is worth knowing about it, stored all the same (response/settings/party-receivers.ts).
 */
export const systemConfigWarningSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['code', 'path', 'party', 'message'],
  properties: {
    code: { type: 'string', enum: ['party_without_receiver'], description: 'party_without_receiver: an escalation can reach the party (escalation_order, an alert rule\'s escalate_to, a dwell ladder) and it has no receiver (no active webhook among its webhook_ids): its escalations are recorded and nobody is told.' },
    path: { type: 'string', description: 'JSON Pointer into the document: /parties/<i>/webhook_ids.' },
    party: { type: 'string', description: 'The party id.' },
    message: { type: 'string', description: 'What is wrong and what reaches the party, in words.' },
  },
} as const;
export type SystemConfigWarning = FromSchema<typeof systemConfigWarningSchema>;

export const systemConfigPutResponseSchema = {
  type: 'object',
  required: ['data', 'warnings'],
  properties: {
    data: systemConfigSchema,
    warnings: { type: 'array', items: systemConfigWarningSchema, description: 'What is worth knowing about the document stored; empty when nothing is.' },
  },
} as const;

/** One change of the configuration (`GET /v1/system/config/changes`). */
export const systemConfigChangeSchema = {
  type: 'object',
  required: ['revision', 'changed_at', 'changed_by', 'before', 'after'],
  properties: {
    revision: { type: 'integer', description: 'Changes so far, this one included: 1 for the first.' },
    changed_at: { type: 'string', format: 'date-time' },
    changed_by: {
      type: 'object',
      required: ['credential_id', 'principal', 'auth_kind'],
      properties: {
        credential_id: { type: 'string', description: 'The API key id or the OAuth access-token id; `cli` for `pss config set`.' },
        principal: { type: 'string', description: "The API key's name, or the operator's username." },
        auth_kind: { type: 'string', enum: ['api_key', 'oauth', 'cli'], description: 'cli: `pss config set` on a host with the database credentials.' },
      },
    },
    before: { ...systemConfigShape, description: 'The document before the change (the shipped defaults for the first change).' },
    after: { ...systemConfigShape, description: 'The document as stored by the change.' },
  },
} as const;

export const systemConfigChangesQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    start_date: { type: 'string', minLength: 1, maxLength: 40, description: 'ISO 8601 date or date-time (UTC when no offset), as in GET /v1/events; changes at or after it. Default: the first change.' },
    end_date: { type: 'string', minLength: 1, maxLength: 40, description: 'ISO 8601 date or date-time; changes at or before it. Default: now.' },
    ...pageQueryProperties,
  },
} as const;
