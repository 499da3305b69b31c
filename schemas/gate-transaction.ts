import type { FromSchema } from 'json-schema-to-ts';
import { pageQueryProperties } from './common.ts';

/** Spec "Gate transaction" and "States and transitions". */
export const TRANSACTION_STATUSES = ['approved', 'flagged', 'held', 'overridden', 'rejected'] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];
export const AUTOMATED_DECISIONS = ['auto_approved', 'manual_review', 'auto_rejected'] as const;
export type AutomatedDecision = (typeof AUTOMATED_DECISIONS)[number];
export const OVERRIDE_DECISIONS = ['approved', 'rejected'] as const;
export type OverrideDecision = (typeof OVERRIDE_DECISIONS)[number];
export const GATE_ACTIONS = ['open', 'hold', 'lock'] as const;
export type GateAction = (typeof GATE_ACTIONS)[number];
/** What a command on gate.commands may ask: an override's actions, and `release` of a whole-gate lock (issue 34; never an override's gate_action). */
export const GATE_COMMAND_ACTIONS = [...GATE_ACTIONS, 'release'] as const;
export type GateCommandAction = (typeof GATE_COMMAND_ACTIONS)[number];
export const TRANSACTION_SORTS = ['created_at', 'risk_score', 'gate', 'review'] as const;

const str = { type: 'string' } as const;
const num = { type: 'number' } as const;
const ts = { type: 'string', format: 'date-time' } as const;

const seal = (detail: boolean) =>
  ({
    type: 'object',
    properties: { number: str, status: str, confidence: num, ...(detail ? { seal_image_url: str } : {}) },
  }) as const;

const anomaly = (detail: boolean) =>
  ({
    type: 'object',
    additionalProperties: false,
    required: ['type', 'message', 'severity'],
    properties: { type: str, message: str, severity: str, ...(detail ? { confidence: num } : {}) },
  }) as const;

/** The list view: the spec's fields without those marked "detail only". */
export const transactionListItemSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'gate', 'lane', 'status', 'decision', 'created_at', 'completed_at', 'vehicle', 'container', 'inspection', 'risk_score', 'processing_time_ms', 'operator'],
  properties: {
    id: str,
    gate: str,
    lane: { type: 'string', description: 'The lane whose sensors read the truck (our addition: the spec\'s transaction has no lane; its reading does).' },
    status: { type: 'string', enum: TRANSACTION_STATUSES },
    decision: str,
    created_at: ts,
    completed_at: { type: ['string', 'null'], format: 'date-time' },
    vehicle: { type: 'object', additionalProperties: false, properties: { plate: str, plate_confidence: num, type: str, carrier: str } },
    container: {
      type: 'object',
      additionalProperties: false,
      properties: { id: str, ocr_confidence: num, iso_type: str, size: str, seal: seal(false) },
    },
    inspection: {
      type: 'object',
      additionalProperties: false,
      required: ['damage_detected', 'ocr_match', 'seal_verified', 'anomalies'],
      properties: { damage_detected: { type: 'boolean' }, ocr_match: { type: 'boolean' }, seal_verified: { type: 'boolean' }, anomalies: { type: 'array', items: anomaly(false) } },
    },
    risk_score: num,
    processing_time_ms: num,
    operator: { type: ['string', 'null'] },
  },
} as const;

const auditEntry = {
  type: 'object',
  additionalProperties: false,
  required: ['action', 'timestamp', 'actor'],
  properties: { action: str, timestamp: ts, actor: str, details: { type: 'object' }, rule: str },
} as const;

/** The detail view: every field of the spec. */
export const transactionDetailSchema = {
  type: 'object',
  additionalProperties: false,
  required: [...transactionListItemSchema.required, 'risk_factors', 'audit_trail'],
  properties: {
    ...transactionListItemSchema.properties,
    vehicle: {
      type: 'object',
      additionalProperties: false,
      properties: { plate: str, plate_confidence: num, plate_image_url: str, type: str, carrier: str, driver_id: str, appointment_id: str },
    },
    container: {
      type: 'object',
      additionalProperties: false,
      properties: {
        id: str, ocr_confidence: num, ocr_image_url: str, iso_type: str, size: str,
        weight_declared_kg: num, weight_estimated_kg: num, seal: seal(true),
      },
    },
    inspection: {
      type: 'object',
      additionalProperties: false,
      required: ['damage_detected', 'ocr_match', 'seal_verified', 'anomalies', 'damage_regions', 'images'],
      properties: {
        damage_detected: { type: 'boolean' },
        damage_regions: { type: 'array', items: { type: 'object' } },
        ocr_match: { type: 'boolean' },
        seal_verified: { type: 'boolean' },
        anomalies: { type: 'array', items: anomaly(true) },
        images: { type: 'array', items: { type: 'object', required: ['type', 'url', 'captured_at'], properties: { type: str, url: str, captured_at: ts } } },
      },
    },
    risk_factors: { type: 'array', items: { type: 'object', additionalProperties: false, required: ['factor', 'score', 'weight'], properties: { factor: str, score: num, weight: num } } },
    audit_trail: { type: 'array', items: auditEntry },
  },
} as const;
export type TransactionDetail = FromSchema<typeof transactionDetailSchema>;
export type TransactionListItem = FromSchema<typeof transactionListItemSchema>;

/** GET /v1/transactions (spec "Gate transactions" and "Limits"). Dates are read by processors/gate/transaction-filter.ts. */
export const transactionListQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { type: 'string', enum: TRANSACTION_STATUSES },
    gate: { type: 'string', minLength: 1, maxLength: 128 },
    start_date: { type: 'string', minLength: 1, maxLength: 40, description: 'ISO 8601 date or date-time (UTC when no offset); default: 24 hours before end_date. Inclusive.' },
    end_date: { type: 'string', minLength: 1, maxLength: 40, description: 'ISO 8601 date or date-time (UTC when no offset); default: now. Inclusive.' },
    container_id: { type: 'string', minLength: 1, maxLength: 128, description: 'Exact id or its beginning (prefix); case, spaces and dashes ignored.' },
    vehicle_plate: { type: 'string', minLength: 1, maxLength: 200, description: 'Exact plate; case, spaces and dashes ignored.' },
    decision: { type: 'string', enum: AUTOMATED_DECISIONS, description: 'The automated decision; after an override the decision is approved or rejected and matches none of these.' },
    search: { type: 'string', minLength: 1, maxLength: 128, description: 'Our addition: the beginning of the container id or of the plate (either matches); case, spaces, dots and dashes ignored.' },
    sort: { type: 'string', enum: TRANSACTION_SORTS, default: 'created_at', description: 'review (our addition): flagged and held first, then by risk_score in the order asked.' },
    order: { type: 'string', enum: ['asc', 'desc'], default: 'desc' },
    ...pageQueryProperties,
  },
} as const;
export type TransactionListQuery = FromSchema<typeof transactionListQuerySchema>;

/** POST /v1/transactions/{id}/override (spec). */
export const overrideBodySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['decision', 'reason', 'operator_id'],
  properties: {
    decision: { type: 'string', enum: OVERRIDE_DECISIONS },
    reason: { type: 'string', minLength: 10, maxLength: 2000, description: 'At least 10 characters; kept in the audit trail.' },
    operator_id: { type: 'string', minLength: 1, maxLength: 128 },
    notes: { type: 'string', maxLength: 4000 },
    gate_action: { type: 'string', enum: GATE_ACTIONS, description: 'Default: open for approved, hold for rejected.' },
  },
} as const;
export type OverrideBody = FromSchema<typeof overrideBodySchema>;

export const overrideResultSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'status', 'previous_decision', 'new_decision', 'overridden_by', 'overridden_at', 'reason', 'gate_action', 'gate_action_executed'],
  properties: {
    id: str,
    status: { type: 'string', enum: ['overridden'] },
    previous_decision: str,
    new_decision: { type: 'string', enum: OVERRIDE_DECISIONS },
    overridden_by: str,
    overridden_at: ts,
    reason: str,
    gate_action: { type: 'string', enum: GATE_ACTIONS },
    gate_action_executed: { type: 'boolean' },
  },
} as const;
export type OverrideResult = FromSchema<typeof overrideResultSchema>;

/** What caused a gate command (docs/gate.md "Gate commands"): an operator's override, the automated decision, or a response action. */
export const GATE_COMMAND_ORIGINS = ['override', 'decision', 'response', 'release'] as const;
export type GateCommandOrigin = (typeof GATE_COMMAND_ORIGINS)[number];
/** The lane of a command to the whole gate (a lock from the response loop). */
export const ALL_LANES = '*';

/**
 * A command to a gate lane controller (gate.commands, key: gate). Controllers subscribed to their gate
 * execute commands for their lane (and those whose lane is "*", the whole gate), once per command_id (the
 * topic may deliver one twice), in offset order. Extended compatibly with issue 23: every command of the
 * first version is still valid, the new fields are optional, and transaction_id is required only of lane
 * commands (a whole-gate lock has none).
 */
export const gateCommandSchema = {
  $id: 'https://schemas.port-security.local/gate/command.json',
  title: 'Gate lane command',
  type: 'object',
  additionalProperties: false,
  required: ['command_id', 'gate', 'lane', 'action', 'issued_at', 'issued_by', 'reason'],
  properties: {
    command_id: { type: 'string', minLength: 1, description: 'Derived from the cause: the same cause never yields a second id.' },
    gate: { type: 'string', minLength: 1 },
    lane: { type: 'string', minLength: 1, description: 'The lane, or "*" for every lane of the gate.' },
    action: { type: 'string', enum: GATE_COMMAND_ACTIONS, description: 'open, hold, lock; release lifts a lock of the lane named ("*": the whole gate\'s lock), sent by an operator (POST /v1/gates/{gate_id}/release).' },
    transaction_id: { type: 'string', minLength: 1, description: 'The transaction the command carries out; on every lane command, absent on a whole-gate command.' },
    issued_at: { type: 'string', format: 'date-time' },
    issued_by: { type: 'string', minLength: 1, description: 'operator_id of an override; system:gate-processor for an automated decision; the response loop for a response action' },
    reason: { type: 'string' },
    origin: { type: 'string', enum: GATE_COMMAND_ORIGINS, description: 'What caused it. Absent on commands produced before issue 23 (all of them overrides).' },
    transaction_status: { type: 'string', enum: TRANSACTION_STATUSES, description: 'The transaction\'s status the command carries out (what the lane may show the driver).' },
    cause: {
      type: 'object',
      additionalProperties: false,
      description: 'A response action\'s cause: the action, and the incident and event it answers; a release\'s: the lock command it lifts (and that lock\'s action and incident).',
      properties: { action_id: { type: 'string', minLength: 1 }, incident_id: { type: 'string', minLength: 1 }, event_id: { type: 'string', minLength: 1 }, lock_command_id: { type: 'string', minLength: 1 } },
    },
  },
  if: { properties: { lane: { not: { const: ALL_LANES } } } },
  then: { required: ['transaction_id'] },
} as const;
export type GateCommand = FromSchema<typeof gateCommandSchema>;
