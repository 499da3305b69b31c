// One reading becomes one transaction (pure): the reading's vehicle, container and inspection as the
// spec names them, plus what the processor derived (risk, decision), and the row the store writes.
import { createHash } from 'node:crypto';
import type { GateAppointment } from '../../schemas/gate-appointment.ts';
import type { GateReadingRecord } from '../../schemas/gate-reading.ts';
import type { TransactionDetail, TransactionListItem } from '../../schemas/gate-transaction.ts';
import type { AppointmentPolicy } from './appointment-policy.ts';
import { decide, type DecisionThresholds, type GateDecision } from './decision.ts';
import { assessRisk, comparable, type Booking, type RiskAssessment, type RiskRules } from './risk.ts';

/** Deterministic from the reading, so a replayed reading names the same transaction. */
export function transactionId(readingId: string): string {
  return `gtx_${createHash('sha256').update(readingId).digest('hex').slice(0, 24)}`;
}

/** What the store writes for a new transaction; `body` is the detail view without the changing fields. */
export interface NewTransaction {
  id: string;
  readingId: string;
  gate: string;
  lane: string;
  status: GateDecision['status'];
  decision: GateDecision['decision'];
  createdAt: string;
  completedAt: string | null;
  containerKey: string | null;
  plateKey: string | null;
  riskScore: number;
  body: StoredBody;
  risk: RiskAssessment;
  verdict: GateDecision;
  /** The reading's own identifiers, for events. */
  reading: GateReadingRecord;
  appointment: GateAppointment | undefined;
}

/** The detail view without status, decision, completed_at, operator and audit_trail (columns and the audit table). */
export type StoredBody = Omit<TransactionDetail, 'status' | 'decision' | 'completed_at' | 'operator' | 'audit_trail'> & { reading_id: string };

export interface DecideOptions {
  risk: RiskRules;
  thresholds: DecisionThresholds;
  appointments: AppointmentPolicy;
}

export function buildTransaction(reading: GateReadingRecord, booking: Booking, options: DecideOptions, decidedAt: number): NewTransaction {
  const { appointment } = booking;
  const risk = assessRisk(reading, booking, options.risk);
  const verdict = decide(risk, options.thresholds);
  const createdAt = new Date(decidedAt).toISOString();
  // From the moment the service had the reading (ingest's received_at) to the decision.
  const processingMs = Math.max(0, decidedAt - Date.parse(reading.received_at));
  const id = transactionId(reading.reading_id);
  const body: StoredBody = {
    id,
    reading_id: reading.reading_id,
    gate: reading.gate,
    lane: reading.lane,
    created_at: createdAt,
    vehicle: { ...reading.vehicle },
    container: { ...reading.container },
    inspection: {
      damage_detected: risk.damageDetected,
      damage_regions: reading.inspection?.damage_regions ?? [],
      ocr_match: risk.ocrMatch,
      seal_verified: risk.sealVerified,
      anomalies: risk.anomalies,
      images: reading.inspection?.images ?? [],
    },
    risk_score: risk.riskScore,
    risk_factors: risk.factors,
    processing_time_ms: processingMs,
  };
  return {
    id,
    readingId: reading.reading_id,
    gate: reading.gate,
    lane: reading.lane,
    status: verdict.status,
    decision: verdict.decision,
    createdAt,
    // A transaction the system decided alone is complete; one waiting for an operator is not.
    completedAt: verdict.status === 'approved' || verdict.status === 'rejected' ? createdAt : null,
    containerKey: comparable(reading.container?.id) ?? null,
    plateKey: comparable(reading.vehicle?.plate) ?? null,
    riskScore: risk.riskScore,
    body,
    risk,
    verdict,
    reading,
    appointment,
  };
}

export interface TransactionState {
  status: string;
  decision: string;
  completed_at: string | null;
  operator: string | null;
}

export interface AuditEntryView {
  action: string;
  timestamp: string;
  actor: string;
  details?: Record<string, unknown>;
  rule?: string;
}

/** The detail view: the stored body with the current state and the audit trail (lane is our addition, reading_id stays inside). */
export function detailView(body: StoredBody, state: TransactionState, audit: AuditEntryView[]): TransactionDetail {
  const { reading_id: _readingId, ...rest } = body;
  return { ...rest, status: state.status as TransactionDetail['status'], decision: state.decision, completed_at: state.completed_at, operator: state.operator, audit_trail: audit };
}

/** The list view: the spec's fields without those marked "detail only". */
export function listView(body: StoredBody, state: TransactionState): TransactionListItem {
  const { vehicle, container, inspection } = body;
  const v: TransactionListItem['vehicle'] = {};
  if (vehicle.plate !== undefined) v.plate = vehicle.plate;
  if (vehicle.plate_confidence !== undefined) v.plate_confidence = vehicle.plate_confidence;
  if (vehicle.type !== undefined) v.type = vehicle.type;
  if (vehicle.carrier !== undefined) v.carrier = vehicle.carrier;
  const c: TransactionListItem['container'] = {};
  if (container.id !== undefined) c.id = container.id;
  if (container.ocr_confidence !== undefined) c.ocr_confidence = container.ocr_confidence;
  if (container.iso_type !== undefined) c.iso_type = container.iso_type;
  if (container.size !== undefined) c.size = container.size;
  if (container.seal !== undefined) {
    const { seal_image_url: _url, ...seal } = container.seal;
    c.seal = seal;
  }
  return {
    id: body.id,
    gate: body.gate,
    lane: body.lane,
    status: state.status as TransactionListItem['status'],
    decision: state.decision,
    created_at: body.created_at,
    completed_at: state.completed_at,
    vehicle: v,
    container: c,
    inspection: {
      damage_detected: inspection.damage_detected,
      ocr_match: inspection.ocr_match,
      seal_verified: inspection.seal_verified,
      anomalies: inspection.anomalies.map(({ type, message, severity }) => ({ type, message, severity })),
    },
    risk_score: body.risk_score,
    processing_time_ms: body.processing_time_ms,
    operator: state.operator,
  };
}
