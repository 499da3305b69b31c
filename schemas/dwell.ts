import type { FromSchema } from 'json-schema-to-ts';

/** Spec "Dwell response (top-level fields)". `alert_status` adds `escalated` to the values seen. */
export const dwellResponseSchema = {
  $id: 'https://pss.local/schemas/dwell-response.json',
  type: 'object',
  required: ['zone_id', 'zone_name', 'vessels'],
  properties: {
    zone_id: { type: 'string' },
    zone_name: { type: 'string' },
    vessels: {
      type: 'array',
      items: {
        type: 'object',
        required: ['mmsi', 'vessel_name', 'entered_at', 'dwell_minutes', 'authorized', 'alert_status'],
        properties: {
          mmsi: { type: 'integer' },
          /** The spec types it string: empty until static data has named the vessel (docs/zones-and-rules.md, decision 13). */
          vessel_name: { type: 'string' },
          /** Start of the current stay; dwell carried over from an earlier stay is in dwell_minutes. */
          entered_at: { type: 'string', format: 'date-time' },
          /** Whole minutes of visit dwell, carry-over included. */
          dwell_minutes: { type: 'integer', minimum: 0 },
          authorized: { type: 'boolean' },
          /** none; active (dwell_threshold fired this visit); escalated (an escalation rung fired too). */
          alert_status: { type: 'string', enum: ['none', 'active', 'escalated'] },
        },
      },
    },
  },
} as const;

export type DwellResponse = FromSchema<typeof dwellResponseSchema>;
