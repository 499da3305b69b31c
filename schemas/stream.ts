import type { FromSchema } from 'json-schema-to-ts';
import { EVENT_CATEGORIES, EVENT_SEVERITIES } from './event.ts';

/**
 * The WebSocket stream's subscription filters (spec "WebSocket stream": subscribe / update_filters). Every
 * field is optional; an absent or empty list means "any". They combine with AND, the values of one list
 * with OR. `zones` holds zone names or ids, as GET /v1/events's `zone` parameter.
 */
export const streamFiltersSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    categories: { type: 'array', maxItems: 50, items: { type: 'string', enum: EVENT_CATEGORIES } },
    min_severity: { type: 'string', enum: EVENT_SEVERITIES },
    zones: { type: 'array', maxItems: 200, items: { type: 'string', minLength: 1, maxLength: 200 } },
    source_modules: { type: 'array', maxItems: 200, items: { type: 'string', minLength: 1, maxLength: 200 } },
  },
} as const;

export type StreamFilters = FromSchema<typeof streamFiltersSchema>;

/** The filter fields, in the order error messages list them. */
export const STREAM_FILTER_FIELDS = Object.keys(streamFiltersSchema.properties) as (keyof StreamFilters)[];
