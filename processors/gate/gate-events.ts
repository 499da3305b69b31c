// The security events of gate transactions (pure). Ids come from the transaction and the finding, so a
// replayed reading or a retried override yields the same ids and the store drops the duplicates.
// Severities are the spec's; the decision-category events are the transaction's decision value
// (events/event-types.ts): manual_review for a truck held at the lane, auto_rejected for a rejection.
// Approvals and flags raise no decision event (gate_transaction_created carries them).
import { eventId } from '../../events/event-id.ts';
import type { EventType } from '../../events/event-types.ts';
import { EVENT_TYPES } from '../../events/event-types.ts';
import type { EventSeverity, SecurityEvent } from '../../schemas/event.ts';
import type { OverrideResult } from '../../schemas/gate-transaction.ts';
import type { NewTransaction } from './transaction.ts';

export const GATE_SOURCE_MODULE = 'gate';

interface EventParts {
  type: EventType;
  severity?: EventSeverity;
  cause: string;
  timestamp: string;
  device: string;
  title: string;
  description: string;
  metadata: Record<string, unknown>;
  requiresAction: boolean;
}

function event(p: EventParts): SecurityEvent {
  const rule = EVENT_TYPES[p.type];
  return {
    id: eventId(`${p.type}:${p.cause}`),
    type: p.type,
    timestamp: p.timestamp,
    category: rule.category,
    severity: p.severity ?? (rule.severity === 'varies' ? 'medium' : rule.severity),
    source_module: GATE_SOURCE_MODULE,
    source_device: p.device,
    title: p.title,
    description: p.description,
    location: {},
    metadata: p.metadata,
    requires_action: p.requiresAction,
    assigned_to: '',
    incident_id: null,
  };
}

/**
 * The ship the booking says the container goes on, when it says (issue 23): incidents group the gate
 * event with that vessel's maritime events (incidents/grouping.ts). Absent otherwise.
 */
function vesselLink(tx: NewTransaction): Record<string, unknown> {
  const booking = tx.appointment;
  if (booking?.vessel_mmsi === undefined && booking?.vessel_imo === undefined) return {};
  return { appointment_id: booking.appointment_id, vessel_mmsi: booking.vessel_mmsi ?? null, vessel_imo: booking.vessel_imo ?? null };
}

export function transactionEvents(tx: NewTransaction): SecurityEvent[] {
  const { reading, risk, verdict } = tx;
  const device = `${tx.gate}/${tx.lane}`;
  const plate = reading.vehicle?.plate ?? null;
  const container = reading.container?.id ?? null;
  const base = { transaction_id: tx.id, reading_id: tx.readingId, gate: tx.gate, lane: tx.lane, container_id: container, vehicle_plate: plate, ...vesselLink(tx) };
  const common = { cause: tx.id, timestamp: tx.createdAt, device };
  const who = `${container ?? 'no container'} on ${plate ?? 'unread plate'}`;
  const events: SecurityEvent[] = [
    event({
      ...common,
      type: 'gate_transaction_created',
      title: `Gate transaction at ${device}: ${tx.status}`,
      description: `${who}; risk score ${tx.riskScore}, decision ${tx.decision}`,
      metadata: { ...base, status: tx.status, decision: tx.decision, risk_score: tx.riskScore, confidence: reading.container?.ocr_confidence ?? reading.vehicle?.plate_confidence ?? null },
      requiresAction: tx.status === 'flagged' || tx.status === 'held',
    }),
  ];
  if (risk.containerMismatch || risk.containerIdInvalid) {
    const anomaly = risk.anomalies.find((a) => ['container_mismatch', 'container_check_digit_invalid', 'container_id_malformed'].includes(a.type));
    events.push(
      event({
        ...common,
        type: 'ocr_mismatch',
        title: `Container id differs from expected at ${device}`,
        description: anomaly?.message ?? who,
        metadata: { ...base, reason: risk.containerMismatch ? 'container_mismatch' : (anomaly?.type ?? 'container_id_invalid'), expected_container_id: tx.appointment?.container_id ?? null, confidence: reading.container?.ocr_confidence ?? null },
        requiresAction: true,
      }),
    );
  }
  if (risk.sealViolation !== undefined) {
    const seal = reading.container?.seal;
    events.push(
      event({
        ...common,
        type: 'seal_violation',
        title: `Seal ${risk.sealViolation.replace('_', ' ')} at ${device}`,
        description: risk.anomalies.find((a) => a.type === `seal_${risk.sealViolation}`)?.message ?? who,
        metadata: { ...base, violation: risk.sealViolation, seal_number: seal?.number ?? null, seal_status: seal?.status ?? null, confidence: seal?.confidence ?? null },
        requiresAction: true,
      }),
    );
  }
  if (risk.damageDetected) {
    const regions = reading.inspection?.damage_regions ?? [];
    events.push(
      event({
        ...common,
        type: 'damage_detected',
        title: `Container damage at ${device}: ${risk.damageSeverity ?? 'medium'}`,
        description: regions.map((r) => `${r.severity ?? 'medium'} ${r.type}${r.area ? ` on ${r.area}` : ''}`).join('; '),
        metadata: { ...base, worst_severity: risk.damageSeverity ?? null, regions: regions.length, confidence: Math.max(...regions.map((r) => r.confidence ?? 1)) },
        requiresAction: risk.damageSeverity === 'high' || risk.damageSeverity === 'critical',
      }),
    );
  }
  if (verdict.status === 'held' || verdict.status === 'rejected') {
    events.push(
      event({
        ...common,
        type: verdict.decision,
        title: verdict.status === 'held' ? `Truck held at ${device} for review` : `Truck rejected at ${device}`,
        description: `${who}: ${verdict.rule}`,
        metadata: { ...base, status: verdict.status, decision: verdict.decision, risk_score: tx.riskScore, rule: verdict.rule, hold_reasons: verdict.holdReasons },
        requiresAction: true,
      }),
    );
  }
  return events;
}

export interface OverrideContext {
  gate: string;
  lane: string;
  notes?: string;
}

export function overrideEvents(result: OverrideResult, where: OverrideContext): SecurityEvent[] {
  const device = `${where.gate}/${where.lane}`;
  const base = { transaction_id: result.id, gate: where.gate, lane: where.lane, operator_id: result.overridden_by, previous_decision: result.previous_decision, new_decision: result.new_decision, gate_action: result.gate_action };
  const common = { cause: result.id, timestamp: result.overridden_at, device };
  const events = [
    event({
      ...common,
      type: 'gate_override',
      title: `Operator ${result.overridden_by} overrode ${result.id}: ${result.new_decision}`,
      description: result.reason,
      metadata: { ...base, reason: result.reason, ...(where.notes === undefined ? {} : { notes: where.notes }) },
      requiresAction: false,
    }),
  ];
  if (result.gate_action === 'lock') {
    events.push(
      event({ ...common, type: 'gate_locked', title: `Gate ${device} locked by ${result.overridden_by}`, description: result.reason, metadata: base, requiresAction: true }),
    );
  }
  return events;
}
