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
export const TRANSACTION_SORTS = ['created_at', 'risk_score', 'gate'] as const;

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
  required: ['id', 'gate', 'status', 'decision', 'created_at', 'completed_at', 'vehicle', 'container', 'inspection', 'risk_score', 'processing_time_ms', 'operator'],
  properties: {
    id: str,
    gate: str,
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
    sort: { type: 'string', enum: TRANSACTION_SORTS, default: 'created_at' },
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

/**
 * A command to a gate lane controller (gate.commands, key: gate). Controllers subscribed to their gate
 * execute commands for their lane, once per command_id (the topic may deliver one twice), in offset order.
 */
export const gateCommandSchema = {
  $id: 'https://schemas.port-security.local/gate/command.json',
  title: 'Gate lane command',
  type: 'object',
  additionalProperties: false,
  required: ['command_id', 'gate', 'lane', 'action', 'transaction_id', 'issued_at', 'issued_by', 'reason'],
  properties: {
    command_id: { type: 'string', minLength: 1 },
    gate: { type: 'string', minLength: 1 },
    lane: { type: 'string', minLength: 1 },
    action: { type: 'string', enum: GATE_ACTIONS },
    transaction_id: { type: 'string', minLength: 1 },
    issued_at: { type: 'string', format: 'date-time' },
    issued_by: { type: 'string', minLength: 1, description: 'operator_id of the override' },
    reason: { type: 'string' },
  },
} as const;
export type GateCommand = FromSchema<typeof gateCommandSchema>;
