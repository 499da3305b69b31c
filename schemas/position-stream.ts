import type { FromSchema } from 'json-schema-to-ts';

/**
 * The position stream's subscription filters (our extension, docs/console.md "Position stream"). Both are
 * optional and combine with AND: `bbox` is [west, south, east, north] in WGS 84 degrees (west greater than
 * east crosses the antimeridian), `mmsi` a list of vessels (any of them).
 */
export const positionFiltersSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    bbox: { type: 'array', minItems: 4, maxItems: 4, items: { type: 'number' } },
    mmsi: { type: 'array', maxItems: 1000, items: { type: 'integer', minimum: 0, maximum: 1073741823 } },
  },
} as const;

export type PositionFilters = FromSchema<typeof positionFiltersSchema>;

export const POSITION_FILTER_FIELDS = Object.keys(positionFiltersSchema.properties) as (keyof PositionFilters)[];
