import type { FromSchema } from 'json-schema-to-ts';

/** Shapes shared by every endpoint (spec "Conventions" and "Errors"). */

/** Spec "Errors": {"error": {"code", "message", "request_id"}}; `details` lists problems for validation_error. */
export const errorBodySchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'request_id'],
      properties: {
        code: { type: 'string' },
        message: { type: 'string' },
        request_id: { type: 'string' },
        details: { description: 'Extra machine-readable detail, e.g. the list of validation problems.' },
      },
    },
  },
} as const;
export type ErrorBody = FromSchema<typeof errorBodySchema>;

export const metaSchema = {
  type: 'object',
  required: ['request_id', 'timestamp'],
  properties: { request_id: { type: 'string' }, timestamp: { type: 'string', format: 'date-time' } },
} as const;

export const paginationSchema = {
  type: 'object',
  required: ['page', 'per_page', 'total_items', 'total_pages', 'has_next', 'has_previous'],
  properties: {
    page: { type: 'integer' },
    per_page: { type: 'integer' },
    total_items: { type: 'integer' },
    total_pages: { type: 'integer' },
    has_next: { type: 'boolean' },
    has_previous: { type: 'boolean' },
  },
} as const;

/** Highest page number of any list: 200 million items at per_page 200, and an OFFSET far from any overflow. */
const MAX_PAGE = 1_000_000;

/** Spec "Limits": page default 1, per_page default 50, maximum 200; page at most MAX_PAGE (the spec is silent). */
export const pageQueryProperties = {
  page: { type: 'integer', minimum: 1, maximum: MAX_PAGE, default: 1 },
  per_page: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
} as const;

/** A single-resource response: the object under `data`. */
export function dataOf<const S>(schema: S) {
  return { type: 'object', required: ['data'], properties: { data: schema } } as const;
}

/** A list response: `data` array, `meta`, `pagination`. */
export function listOf<const S>(item: S) {
  return {
    type: 'object',
    required: ['data', 'meta', 'pagination'],
    properties: { data: { type: 'array', items: item }, meta: metaSchema, pagination: paginationSchema },
  } as const;
}

/** Builds the `pagination` object of a list response. */
export function pagination(page: number, perPage: number, totalItems: number) {
  const totalPages = Math.max(1, Math.ceil(totalItems / perPage));
  return { page, per_page: perPage, total_items: totalItems, total_pages: totalPages, has_next: page < totalPages, has_previous: page > 1 };
}
