import type { FromSchema } from 'json-schema-to-ts';

/** Whole-gate locks and their release (issue 34; docs/gate.md "Locks and their release"). */

const str = { type: 'string' } as const;
const strOrNull = { type: ['string', 'null'] } as const;
const tsOrNull = { type: ['string', 'null'], format: 'date-time' } as const;

export const gateLockStateSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['gate_id', 'locked', 'locked_at', 'lock_reason', 'lock_command_id', 'action_id', 'incident_id', 'released_at', 'released_by', 'release_reason', 'release_command_id'],
  properties: {
    gate_id: str,
    locked: { type: 'boolean', description: 'Whether the gate\'s latest whole-gate lock still stands.' },
    locked_at: { type: 'string', format: 'date-time', description: 'When the latest lock was made.' },
    lock_reason: { ...str, description: 'The lock command\'s reason: the event that caused it and the rule.' },
    lock_command_id: str,
    action_id: { ...strOrNull, description: 'The response action that locked it.' },
    incident_id: { ...strOrNull, description: 'The incident of that action (null until the response loop attached its event).' },
    released_at: { ...tsOrNull, description: 'Set while the latest lock is released.' },
    released_by: strOrNull,
    release_reason: strOrNull,
    release_command_id: strOrNull,
  },
} as const;
export type GateLockState = FromSchema<typeof gateLockStateSchema>;

export const gateReleaseBodySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['reason'],
  properties: {
    reason: { type: 'string', minLength: 10, maxLength: 2000, description: 'Why the gate may take trucks again (at least 10 characters, as an override\'s reason).' },
  },
} as const;
export type GateReleaseBody = FromSchema<typeof gateReleaseBodySchema>;

export const gateReleaseResultSchema = {
  ...gateLockStateSchema,
  required: [...gateLockStateSchema.required, 'command_sent'],
  properties: {
    ...gateLockStateSchema.properties,
    command_sent: { type: 'boolean', description: 'Whether Kafka acknowledged the release command within the ack timeout; when false the processors\' senders retry it until it does.' },
  },
} as const;
