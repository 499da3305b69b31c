import type { FromSchema } from 'json-schema-to-ts';
import { gateReadingSchema } from './gate-reading.ts';

/**
 * HTTP ingest contract (issue 4): POST /v1/ingest/ais and POST /v1/ingest/gate. Each item is judged on
 * its own; the answer says which were accepted (acknowledged by Kafka), rejected (with reason; also
 * written to the dead-letter topic) or skipped (valid but not published, e.g. a $GPRMC line).
 * 202 when nothing was rejected; 422 (error body, this object in `error.details`) when something was.
 */

const index = { type: 'integer', minimum: 0, description: 'position of the item in the request (line number for text/plain, 0-based)' } as const;

export const ingestAnswerSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['received', 'accepted_count', 'rejected_count', 'skipped_count', 'accepted', 'rejected', 'skipped'],
  properties: {
    received: { type: 'integer', minimum: 0 },
    accepted_count: { type: 'integer', minimum: 0 },
    rejected_count: { type: 'integer', minimum: 0 },
    skipped_count: { type: 'integer', minimum: 0 },
    accepted: {
      type: 'array',
      items: {
        type: 'object',
        required: ['index'],
        description: 'AIS: mmsi and msg_type of the report the item belonged to. Gate: reading_id, gate and findings.',
        properties: {
          index,
          mmsi: { type: 'integer' },
          msg_type: { type: 'integer' },
          reading_id: { type: 'string' },
          gate: { type: 'string' },
          findings: { type: 'array', items: { type: 'string' } },
        },
      },
    },
    rejected: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['index', 'reason', 'detail'],
        properties: { index, reason: { type: 'string' }, detail: { type: 'string' } },
      },
    },
    skipped: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['index', 'reason'],
        properties: { index, reason: { type: 'string', description: 'not_ais, unsupported_type, no_sentence (blank or # comment line)' } },
      },
    },
  },
} as const;
export type IngestAnswer = FromSchema<typeof ingestAnswerSchema>;

/** The JSON forms of POST /v1/ingest/ais (text/plain NMEA lines are the third form). */
export const aisIngestJsonSchema = {
  oneOf: [
    {
      type: 'object',
      additionalProperties: false,
      required: ['sentences'],
      properties: { sentences: { type: 'array', minItems: 1, items: { description: 'one NMEA line, tag block allowed' } } },
    },
    {
      type: 'object',
      additionalProperties: false,
      required: ['reports'],
      properties: { reports: { type: 'array', minItems: 1, items: { type: 'object', description: 'a decoded report (schemas/ais.ts); source and received_at are set by the ingest' } } },
    },
  ],
} as const;

/** POST /v1/ingest/gate: one reading or an array of readings. */
export const gateIngestBodySchema = {
  oneOf: [gateReadingSchema, { type: 'array', minItems: 1, items: gateReadingSchema }],
} as const;
