import type { FromSchema } from 'json-schema-to-ts';
import { pageQueryProperties } from './common.ts';
import { EVENT_CATEGORIES, EVENT_SEVERITIES } from './event.ts';

/**
 * Spec "Webhook": the fields a client sets. Rules beyond these shapes (known event types, the URL's
 * scheme and host, header names, the secret's strength) are checked in delivery/webhooks/webhook-rules.ts
 * in the same pass, so one 422 lists every problem.
 */
const webhookFields = {
  name: { type: 'string', minLength: 1, maxLength: 200 },
  url: { type: 'string', minLength: 1, maxLength: 2048, description: 'HTTPS URL; its host must not be a private, loopback, link-local or metadata address.' },
  events: { type: 'array', minItems: 1, maxItems: 64, uniqueItems: true, items: { type: 'string', minLength: 1, maxLength: 64 }, description: 'Event types, or ["*"] for all.' },
  min_severity: { type: 'string', enum: EVENT_SEVERITIES },
  secret: { type: 'string', minLength: 1, maxLength: 256, description: 'Signing secret: 24 to 256 visible ASCII characters, at least 8 of them different. Shown in full only in the creation response.' },
  active: { type: 'boolean' },
  headers: { type: 'object', maxProperties: 20, additionalProperties: { type: 'string', maxLength: 1024 }, description: 'Added to every delivery; not the service\'s own headers, not hop-by-hop headers.' },
  categories: { type: 'array', maxItems: EVENT_CATEGORIES.length, uniqueItems: true, items: { type: 'string', enum: EVENT_CATEGORIES } },
  zones: { type: 'array', maxItems: 100, uniqueItems: true, items: { type: 'string', minLength: 1, maxLength: 128 }, description: 'Zone names (compared case-insensitively); an event without a zone does not match.' },
} as const;

export const webhookCreateSchema = {
  $id: 'https://pss.local/schemas/webhook-create.json',
  type: 'object',
  additionalProperties: false,
  required: ['name', 'url', 'events', 'secret'],
  properties: webhookFields,
} as const;
export type WebhookCreate = FromSchema<typeof webhookCreateSchema>;

/** PUT: any subset of the fields (spec "Webhooks"); `null` clears min_severity, categories and zones. */
export const webhookUpdateSchema = {
  $id: 'https://pss.local/schemas/webhook-update.json',
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    ...webhookFields,
    min_severity: { type: ['string', 'null'], enum: [...EVENT_SEVERITIES, null] },
    categories: { ...webhookFields.categories, type: ['array', 'null'] },
    zones: { ...webhookFields.zones, type: ['array', 'null'] },
  },
} as const;
export type WebhookUpdate = FromSchema<typeof webhookUpdateSchema>;

const nullableTime = { type: ['string', 'null'], format: 'date-time' } as const;

export const webhookHealthSchema = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['healthy', 'failing'] },
    success_count: { type: 'integer' },
    failure_count: { type: 'integer' },
    success_rate_percent: { type: 'number' },
    last_success_at: nullableTime,
    last_failure_at: nullableTime,
    last_failure_reason: { type: ['string', 'null'] },
    avg_response_time_ms: { type: 'number' },
    window_hours: { type: 'integer', description: 'The window of the fields below.' },
    response_time_p50_ms: { type: ['number', 'null'] },
    response_time_p95_ms: { type: ['number', 'null'] },
    failures_by_reason: { type: 'object', additionalProperties: { type: 'integer' }, description: 'timeout, refused, dns, tls, blocked_address, 4xx, 5xx, 3xx, other' },
  },
} as const;

export const webhookRecordSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    ...webhookFields,
    secret_hint: { type: 'string', description: 'The last four characters of the secret; the secret itself is shown only at creation.' },
    active: { type: 'boolean' },
    disabled_reason: { type: ['string', 'null'], enum: ['gone', 'consecutive_failures', null] },
    created_at: { type: 'string', format: 'date-time' },
    last_triggered_at: nullableTime,
    success_count: { type: 'integer' },
    failure_count: { type: 'integer' },
    health: webhookHealthSchema,
  },
} as const;

export const webhookDeliverySchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    event_id: { type: 'string' },
    event_type: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'delivered', 'failed', 'cancelled'] },
    attempts: { type: 'integer' },
    response_code: { type: ['integer', 'null'] },
    response_time_ms: { type: ['number', 'null'] },
    first_attempt_error: { type: 'string' },
    last_error: { type: ['string', 'null'] },
    delivered_at: nullableTime,
    next_attempt_at: nullableTime,
    test: { type: 'boolean' },
    created_at: { type: 'string', format: 'date-time' },
  },
} as const;

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'cancelled'] as const;

export const deliveryListQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { type: 'string', enum: DELIVERY_STATUSES },
    ...pageQueryProperties,
  },
} as const;

/** POST /v1/webhooks/{id}/replay: the spec's start_date, end_date and status, plus filters and a dry run. */
export const rangeReplaySchema = {
  $id: 'https://pss.local/schemas/webhook-range-replay.json',
  type: 'object',
  additionalProperties: false,
  required: ['start_date', 'end_date'],
  properties: {
    start_date: { type: 'string', format: 'date-time', description: 'Deliveries recorded at or after this time.' },
    end_date: { type: 'string', format: 'date-time', description: 'Deliveries recorded at or before this time.' },
    status: { type: 'string', enum: ['failed', 'delivered'], default: 'failed' },
    event_type: { type: 'string', minLength: 1, maxLength: 64 },
    severity: { type: 'string', enum: EVENT_SEVERITIES },
    zone: { type: 'string', minLength: 1, maxLength: 128 },
    dry_run: { type: 'boolean', default: false, description: 'Count what would be replayed, replay nothing.' },
  },
} as const;
export type RangeReplay = FromSchema<typeof rangeReplaySchema>;

export const testSendSchema = {
  $id: 'https://pss.local/schemas/webhook-test-send.json',
  type: 'object',
  additionalProperties: false,
  required: ['event_type'],
  properties: { event_type: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;
