// The gate processor's settings, owned here and assembled with every other module's in app/config.ts.
import { int, oneOf, type Setting, type SettingsValues } from '../../platform/config.ts';
import { APPOINTMENT_MODES, parseGateModes } from './appointment-policy.ts';

/** A decimal between min and max (confidences, percentages). */
const decimal = (min: number, max: number) => (raw: string): number => {
  if (!/^\d+(\.\d+)?$/.test(raw.trim())) throw new Error(`must be a number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new Error(`must be between ${min} and ${max}, got ${n}`);
  return n;
};

export const GATE_SETTINGS = {
  gateManualReviewAt: {
    env: 'PSS_GATE_MANUAL_REVIEW_AT',
    description: 'Gate decisions: a transaction whose risk score (0-100) is at least this goes to manual review (flagged or held); below it, auto_approved.',
    default: '30',
    parse: int(1, 100),
  },
  gateRejectAt: {
    env: 'PSS_GATE_REJECT_AT',
    description: 'Gate decisions: a transaction whose risk score is at least this is auto_rejected. Must be above PSS_GATE_MANUAL_REVIEW_AT.',
    default: '70',
    parse: int(1, 101),
  },
  gateWeightTolerancePercent: {
    env: 'PSS_GATE_WEIGHT_TOLERANCE_PERCENT',
    description: 'Gate risk factor weight_deviation: declared vs estimated weight may differ by the greater of this percentage of the declared weight and PSS_GATE_WEIGHT_TOLERANCE_KG (SOLAS sets no tolerance; the default is the UK MCA enforcement rule, MGN 534: 5% or 500 kg).',
    default: '5',
    parse: decimal(0, 100),
  },
  gateWeightToleranceKg: {
    env: 'PSS_GATE_WEIGHT_TOLERANCE_KG',
    description: 'Gate risk factor weight_deviation: the absolute tolerance in kg (see PSS_GATE_WEIGHT_TOLERANCE_PERCENT).',
    default: '500',
    parse: int(0, 100_000),
  },
  gateMinOcrConfidence: {
    env: 'PSS_GATE_MIN_OCR_CONFIDENCE',
    description: 'Gate risk factors plate_ocr_confidence and container_ocr_confidence: a reading at or above this confidence (0-1) adds no risk; below it the factor grows to 100 at confidence 0.',
    default: '0.85',
    parse: decimal(0, 1),
  },
  gateMinSealConfidence: {
    env: 'PSS_GATE_MIN_SEAL_CONFIDENCE',
    description: 'Gate: a seal read with a confidence (0-1) below this counts as unreadable.',
    default: '0.5',
    parse: decimal(0, 1),
  },
  gateAppointments: {
    env: 'PSS_GATE_APPOINTMENTS',
    description: 'Gate risk factor appointment: whether a truck needs a known booking. required: no booking scores 100 (flagged alone); optional: no booking adds no risk; auto: required once gate.appointments has ever held a booking, optional before (a site without a booking feed).',
    default: 'auto',
    parse: oneOf(...APPOINTMENT_MODES),
  },
  gateAppointmentsByGate: {
    env: 'PSS_GATE_APPOINTMENTS_BY_GATE',
    description: 'Per-gate exceptions to PSS_GATE_APPOINTMENTS, comma-separated gate=mode (e.g. gate-north=required,empty-depot=optional). Empty: every gate follows the site.',
    default: '',
    parse: parseGateModes,
  },
  gateProcessorConsumers: {
    env: 'PSS_GATE_PROCESSOR_CONSUMERS',
    description: 'Gate processor: consumers of gate.readings per processors instance (same group, each takes a share of the partitions), so batches are decided while others are being stored. At most the partition count (6).',
    default: '4',
    parse: int(1, 6),
  },
  gateCommandAckTimeoutMs: {
    env: 'PSS_GATE_COMMAND_ACK_TIMEOUT_MS',
    description: "How long one send of gate commands waits for Kafka's acknowledgement: the override answers gate_action_executed false after it, and the command outbox senders retry an attempt that took longer.",
    default: '5000',
    parse: int(100, 60_000),
  },
} as const satisfies Record<string, Setting<unknown>>;

export type GateConfig = SettingsValues<typeof GATE_SETTINGS>;

declare module '../../platform/config.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merges the gate settings into Config
  interface Config extends GateConfig {}
}
