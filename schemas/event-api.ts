import type { FromSchema } from 'json-schema-to-ts';
import { pageQueryProperties } from './common.ts';
import { EVENT_CATEGORIES, EVENT_SEVERITIES } from './event.ts';

/** What a list query may ask for beyond the filters (spec "GET /v1/events"). */
export const EVENT_SORTS = ['timestamp', 'severity'] as const;
export const SORT_ORDERS = ['asc', 'desc'] as const;

const location = {
  type: 'object',
  additionalProperties: false,
  // A position is both coordinates or none.
  dependencies: { lat: ['lng'], lng: ['lat'] },
  properties: {
    lat: { type: 'number', minimum: -90, maximum: 90 },
    lng: { type: 'number', minimum: -180, maximum: 180 },
    zone: { type: 'string', minLength: 1, maxLength: 128 },
  },
} as const;

/**
 * POST /v1/events: an event from one of the port's other systems (perimeter, drone and system modules).
 * The server sets `id` (from the Idempotency-Key header when given) and, when absent, `timestamp` (now),
 * `category` (the type's), `severity` (a fixed one; required for types whose severity varies),
 * `requires_action` (true from medium up), `assigned_to` ("") and `incident_id` (null). The type table
 * checks (events/intake.ts) run in the same pass as this schema, so one 422 lists every problem.
 */
export const eventIntakeSchema = {
  $id: 'https://pss.local/schemas/event-intake.json',
  type: 'object',
  additionalProperties: false,
  required: ['type', 'source_module', 'title'],
  properties: {
    type: { type: 'string', minLength: 1, maxLength: 64, description: 'An event type of the perimeter, drone or system category (spec "Event categories and types").' },
    category: { type: 'string', enum: EVENT_CATEGORIES, description: 'Optional: the type\'s category; any other is refused.' },
    severity: { type: 'string', enum: EVENT_SEVERITIES, description: 'Required for types whose severity varies; for the others optional and must be the type\'s.' },
    timestamp: { type: 'string', format: 'date-time', description: 'When it happened (RFC 3339 with an offset); default: when the service received it. At most 5 minutes in the future.' },
    source_module: { type: 'string', pattern: '^[a-z0-9][a-z0-9._-]*$', maxLength: 64, description: 'The module that found it, e.g. perimeter.fence; it scopes the Idempotency-Key.' },
    source_device: { type: 'string', maxLength: 128, default: '' },
    title: { type: 'string', minLength: 1, maxLength: 200 },
    description: { type: 'string', maxLength: 4000, default: '' },
    location: { ...location, default: {} },
    metadata: { type: 'object', default: {} },
    requires_action: { type: 'boolean', description: 'Default: true for medium, high and critical events.' },
    assigned_to: { type: 'string', maxLength: 128, default: '' },
    incident_id: { type: ['string', 'null'], minLength: 1, maxLength: 64, default: null },
  },
} as const;
export type EventIntake = FromSchema<typeof eventIntakeSchema>;

/** PATCH /v1/events/{event_id}: what operators change (spec "Event"); fields absent stay as they are. */
export const eventPatchSchema = {
  $id: 'https://pss.local/schemas/event-patch.json',
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    requires_action: { type: 'boolean' },
    assigned_to: { type: 'string', maxLength: 128, description: 'Operator identifier; "" unassigns.' },
    incident_id: { type: ['string', 'null'], minLength: 1, maxLength: 64, description: 'null detaches the event from its incident.' },
  },
} as const;
export type EventPatch = FromSchema<typeof eventPatchSchema>;

/**
 * GET /v1/events (spec "Events" and "Limits"). The comma-separated lists and the dates are text here and
 * read by events/event-filter.ts, which names the valid values of an unknown one.
 */
export const eventListQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    category: { type: 'string', minLength: 1, maxLength: 200, description: `Comma-separated: ${EVENT_CATEGORIES.join(', ')}.` },
    type: { type: 'string', minLength: 1, maxLength: 2000, description: 'Comma-separated event types of the type table, e.g. zone_entry,dwell_threshold (an addition to the spec).' },
    severity: { type: 'string', minLength: 1, maxLength: 200, description: `Comma-separated: ${EVENT_SEVERITIES.join(', ')}.` },
    source_module: { type: 'string', minLength: 1, maxLength: 64 },
    zone: { type: 'string', minLength: 1, maxLength: 128, description: 'A zone name (case-insensitive) or a threat zone id.' },
    start_date: { type: 'string', minLength: 1, maxLength: 40, description: 'ISO 8601 date or date-time (UTC when no offset); default: 24 hours before end_date. Inclusive.' },
    end_date: { type: 'string', minLength: 1, maxLength: 40, description: 'ISO 8601 date or date-time (UTC when no offset); default: now. Inclusive.' },
    requires_action: { type: 'boolean' },
    incident_id: { type: 'string', minLength: 1, maxLength: 64 },
    assigned_to: { type: 'string', minLength: 1, maxLength: 128, description: 'Events assigned to this operator (an addition to the spec).' },
    search: { type: 'string', minLength: 1, maxLength: 200, description: 'Words (letters and digits) that must all occur in the title or description, in English (stemmed) or as written; the last word of 3 or more characters also as a word\'s beginning.' },
    sort: { type: 'string', enum: EVENT_SORTS, default: 'timestamp', description: 'severity: critical > high > medium > low, ties by time.' },
    order: { type: 'string', enum: SORT_ORDERS, default: 'desc' },
    ...pageQueryProperties,
  },
} as const;
export type EventListQuery = FromSchema<typeof eventListQuerySchema>;
