import type { FromSchema } from 'json-schema-to-ts';
import { aisRejectReasonSchema } from './ais.ts';

/**
 * Value of a record on the `ingest.deadletter` topic (key: the source). Every input the ingest cannot
 * decode or validate ends here with the raw input, where it came from, why, and when (issue 4, "Rejects").
 */

/** Reasons besides the AIS decoder's own (schemas/ais.ts `aisRejectReasonSchema`). */
export const INGEST_REJECT_REASONS = [
  /** A decoded AIS report (decoder output or HTTP `reports` item) that fails its JSON Schema. */
  'report_invalid',
  /** A gate reading that fails schemas/gate-reading.ts. */
  'reading_invalid',
  /** A record on a raw topic or an HTTP item that is not JSON. */
  'invalid_json',
  /** An HTTP item of the wrong kind (e.g. a number where a sentence string belongs). */
  'item_invalid',
  /**
   * Input larger than its bound where it enters (a raw-topic record, a gate reading, an HTTP report), or a
   * record Kafka refused as too large (MESSAGE_TOO_LARGE): never published, only dead-lettered.
   */
  'record_too_large',
  /** A record Kafka refused for good for another reason about the record itself (INVALID_RECORD, INVALID_TIMESTAMP). */
  'record_refused',
  /** A drone telemetry record or fleet report (drone.telemetry, drone.reports) that fails schemas/drone.ts. */
  'drone_record_invalid',
] as const;

/**
 * A dead letter keeps at most this many characters of raw input (all lines together), so that a rejected
 * input of any size still makes a small record (Kafka refuses records over 1 MiB). An NMEA line is at most a
 * few hundred characters, so real rejects are kept whole; a truncated letter says so and gives the size.
 */
export const DEAD_LETTER_RAW_MAX_CHARS = 4096;
/** Longest `detail` kept (a validation message can quote the input). */
export const DEAD_LETTER_DETAIL_MAX_CHARS = 1024;

export const deadLetterReasonSchema = {
  type: 'string',
  enum: [...aisRejectReasonSchema.enum, ...INGEST_REJECT_REASONS],
} as const;
export type DeadLetterReason = FromSchema<typeof deadLetterReasonSchema>;

export const deadLetterSchema = {
  $id: 'https://schemas.port-security.local/ingest/dead-letter.json',
  title: 'Rejected ingest input (ingest.deadletter)',
  type: 'object',
  additionalProperties: false,
  required: ['feed', 'raw', 'source', 'reason', 'detail', 'at'],
  properties: {
    feed: { type: 'string', enum: ['ais', 'gate', 'drone'], description: 'Which feed the input belongs to' },
    raw: {
      type: 'array',
      minItems: 1,
      items: { type: 'string' },
      description: `The input as received: NMEA lines (fragments in order), or the JSON text of one gate reading / report; at most ${DEAD_LETTER_RAW_MAX_CHARS} characters in all (see truncated)`,
    },
    truncated: { const: true, description: 'Present when raw was cut to its bound; raw_bytes gives the size of the whole input' },
    raw_bytes: {
      type: 'integer',
      minimum: 0,
      description: 'Present with truncated: the size of the whole raw input (characters of the text as read: one per byte for NMEA feeds and raw topics, which are read as latin1)',
    },
    source: { type: 'string', minLength: 1, description: 'Feed name (TCP/UDP source, replay file, http:<credential>, raw-topic key)' },
    station: { type: 'string', minLength: 1, description: 'AIS receiving station from the tag block, when known' },
    reason: deadLetterReasonSchema,
    detail: { type: 'string', description: `Human-readable explanation (which check failed, what was expected), at most ${DEAD_LETTER_DETAIL_MAX_CHARS} characters` },
    at: { type: 'string', format: 'date-time', description: 'When the ingest rejected it' },
  },
} as const;
export type DeadLetter = FromSchema<typeof deadLetterSchema>;
