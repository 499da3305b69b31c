import type { FromSchema } from 'json-schema-to-ts';

/** Spec "Event categories and types". */
export const EVENT_CATEGORIES = ['gate', 'perimeter', 'maritime', 'drone', 'system', 'decision'] as const;
export const EVENT_SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;

/**
 * A security event as it travels on the security.events topic, is stored, and is served over REST,
 * the WebSocket stream and webhooks (spec "Event"). `type` is the spec's event type (zone_entry, …).
 * The spec types `assigned_to` as a string and `incident_id` as "string or null": so `assigned_to` is
 * "" until an operator takes the event, and `incident_id` null until an incident does.
 */
export const securityEventSchema = {
  $id: 'https://pss.local/schemas/security-event.json',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'type', 'timestamp', 'category', 'severity', 'source_module', 'source_device', 'title', 'description', 'location', 'metadata', 'requires_action', 'assigned_to', 'incident_id'],
  properties: {
    id: { type: 'string', pattern: '^evt_[0-9a-f]{32}$' },
    type: { type: 'string', minLength: 1, maxLength: 64 },
    timestamp: { type: 'string', format: 'date-time' },
    category: { type: 'string', enum: EVENT_CATEGORIES },
    severity: { type: 'string', enum: EVENT_SEVERITIES },
    source_module: { type: 'string', minLength: 1 },
    source_device: { type: 'string' },
    title: { type: 'string', minLength: 1 },
    description: { type: 'string' },
    location: {
      type: 'object',
      additionalProperties: false,
      properties: {
        lat: { type: 'number', minimum: -90, maximum: 90 },
        lng: { type: 'number', minimum: -180, maximum: 180 },
        zone: { type: 'string' },
      },
    },
    metadata: { type: 'object' },
    requires_action: { type: 'boolean' },
    /** Operator identifier; "" while unassigned. */
    assigned_to: { type: 'string' },
    incident_id: { type: ['string', 'null'] },
  },
} as const;

export type SecurityEvent = FromSchema<typeof securityEventSchema>;
export type EventCategory = (typeof EVENT_CATEGORIES)[number];
export type EventSeverity = (typeof EVENT_SEVERITIES)[number];
