// Risk scoring of one gate reading against its appointment (pure). Each factor has a score 0-100 (how
// bad its finding is) and a weight (how much of the composite it may take); the composite risk score is
// the weighted sum, capped at 100, so one grave finding (a broken seal: 100 x 0.6 = 60) reaches manual
// review alone and two reach rejection, while many small doubts add up. Every factor is listed, 0 when
// nothing was found, so the detail view shows what was checked. docs/gate.md "Risk factors" has the table.
import type { GateAppointment } from '../../schemas/gate-appointment.ts';
import type { GateReadingRecord } from '../../schemas/gate-reading.ts';

export interface RiskRules {
  /** Confidence at or above which an OCR/LPR read adds no risk. */
  minOcrConfidence: number;
  minSealConfidence: number;
  weightTolerancePercent: number;
  weightToleranceKg: number;
}

export const DEFAULT_RISK_RULES: RiskRules = { minOcrConfidence: 0.85, minSealConfidence: 0.5, weightTolerancePercent: 5, weightToleranceKg: 500 };

/** The factors and their weights. */
export const FACTOR_WEIGHTS = {
  plate_ocr_confidence: 0.15,
  container_ocr_confidence: 0.15,
  container_check_digit: 0.35,
  container_appointment_mismatch: 0.4,
  plate_appointment_mismatch: 0.25,
  seal: 0.6,
  damage: 0.6,
  weight_deviation: 0.3,
  appointment: 0.3,
} as const;
export type RiskFactorName = keyof typeof FACTOR_WEIGHTS;

export interface RiskFactor {
  factor: RiskFactorName;
  score: number;
  weight: number;
}

export type Severity = 'low' | 'medium' | 'high' | 'critical';

export interface Anomaly {
  type: string;
  message: string;
  severity: Severity;
  confidence: number;
}

/** Seal findings that are violations (spec event seal_violation: missing, broken or tampered; and the wrong seal). */
export type SealViolation = 'missing' | 'broken' | 'tampered' | 'number_mismatch';

export interface RiskAssessment {
  riskScore: number;
  factors: RiskFactor[];
  anomalies: Anomaly[];
  ocrMatch: boolean;
  sealVerified: boolean;
  damageDetected: boolean;
  /** Worst damage severity found, if any. */
  damageSeverity?: Severity;
  sealViolation?: SealViolation;
  /** The container id read differs from the booked one. */
  containerMismatch: boolean;
  plateMismatch: boolean;
  /** The container id read fails ISO 6346 (check digit or shape). */
  containerIdInvalid: boolean;
}

/** Upper case without spaces, dashes and dots: how ids and plates are compared (and filtered on). */
export function comparable(text: string | undefined): string | undefined {
  return text === undefined ? undefined : text.toUpperCase().replace(/[\s.-]/g, '');
}

const SEVERITY_SCORE: Record<Severity, number> = { low: 25, medium: 50, high: 80, critical: 100 };
const SEVERITY_ORDER: Severity[] = ['low', 'medium', 'high', 'critical'];
const round1 = (n: number) => Math.round(n * 10) / 10;

/** The reading's booking as the processor found it, and whether one is required at its gate (appointment-policy.ts). */
export interface Booking {
  appointment: GateAppointment | undefined;
  required: boolean;
}

export function assessRisk(reading: GateReadingRecord, booking: Booking, rules: RiskRules): RiskAssessment {
  const { appointment } = booking;
  const scores = new Map<RiskFactorName, number>();
  const anomalies: Anomaly[] = [];
  const add = (factor: RiskFactorName, score: number, anomaly?: Omit<Anomaly, 'confidence'> & { confidence?: number }) => {
    scores.set(factor, Math.max(scores.get(factor) ?? 0, Math.min(100, Math.max(0, round1(score)))));
    if (anomaly && score > 0) anomalies.push({ confidence: 1, ...anomaly });
  };
  const { vehicle, container } = reading;
  const damageRegions = reading.inspection?.damage_regions ?? [];

  // OCR confidence: 0 at the threshold and above, growing linearly to 100 at confidence 0; nothing read is 100.
  const ocrScore = (confidence: number | undefined) => (confidence === undefined ? 100 : confidence >= rules.minOcrConfidence ? 0 : ((rules.minOcrConfidence - confidence) / rules.minOcrConfidence) * 100);
  if (vehicle?.plate === undefined) add('plate_ocr_confidence', 100, { type: 'plate_unread', message: 'no licence plate was read', severity: 'medium' });
  else add('plate_ocr_confidence', ocrScore(vehicle.plate_confidence), { type: 'plate_low_confidence', message: `plate ${vehicle.plate} read with confidence ${vehicle.plate_confidence ?? 'unknown'} (below ${rules.minOcrConfidence})`, severity: 'low', confidence: vehicle.plate_confidence ?? 0 });

  const containerInvalid = reading.findings.includes('container_check_digit_invalid') || reading.findings.includes('container_id_malformed');
  if (container?.id === undefined) {
    if (appointment) add('container_ocr_confidence', 100, { type: 'container_unread', message: `no container id was read; ${appointment.container_id} is booked`, severity: 'medium' });
    else add('container_ocr_confidence', 0);
  } else {
    add('container_ocr_confidence', ocrScore(container.ocr_confidence), { type: 'container_low_confidence', message: `container ${container.id} read with confidence ${container.ocr_confidence ?? 'unknown'} (below ${rules.minOcrConfidence})`, severity: 'low', confidence: container.ocr_confidence ?? 0 });
  }
  if (reading.findings.includes('container_check_digit_invalid')) {
    add('container_check_digit', 100, { type: 'container_check_digit_invalid', message: `container id ${container?.id ?? ''} fails its ISO 6346 check digit`, severity: 'medium', confidence: container?.ocr_confidence ?? 1 });
  } else if (reading.findings.includes('container_id_malformed')) {
    add('container_check_digit', 100, { type: 'container_id_malformed', message: `container id ${container?.id ?? ''} is not an ISO 6346 id (owner code, category U/J/Z, 6 digits, check digit)`, severity: 'medium', confidence: container?.ocr_confidence ?? 1 });
  } else add('container_check_digit', 0);

  // The appointment: missing, or its expectations against what was read.
  let containerMismatch = false;
  let plateMismatch = false;
  if (appointment === undefined) {
    // Where bookings are optional, an unbooked truck is judged on what the lane saw alone.
    const id = vehicle?.appointment_id;
    add('appointment', booking.required ? 100 : 0, { type: 'appointment_missing', message: id === undefined ? 'the reading names no appointment' : `appointment ${id} is not known`, severity: 'medium' });
    add('container_appointment_mismatch', 0);
    add('plate_appointment_mismatch', 0);
  } else {
    // An id failing ISO 6346 is a misread: its check-digit factor counts it, comparing it with the booking would count it twice.
    containerMismatch = container?.id !== undefined && !containerInvalid && comparable(container.id) !== comparable(appointment.container_id);
    plateMismatch = vehicle?.plate !== undefined && comparable(vehicle.plate) !== comparable(appointment.plate);
    add('container_appointment_mismatch', containerMismatch ? 100 : 0, { type: 'container_mismatch', message: `container ${container?.id ?? ''} read, ${appointment.container_id} booked`, severity: 'high', confidence: container?.ocr_confidence ?? 1 });
    add('plate_appointment_mismatch', plateMismatch ? 100 : 0, { type: 'plate_mismatch', message: `plate ${vehicle?.plate ?? ''} read, ${appointment.plate} booked`, severity: 'medium', confidence: vehicle?.plate_confidence ?? 1 });
    const differs: string[] = [];
    if (appointment.carrier !== undefined && vehicle?.carrier !== undefined && appointment.carrier.toLowerCase() !== vehicle.carrier.toLowerCase()) differs.push(`carrier ${vehicle.carrier} (booked ${appointment.carrier})`);
    if (appointment.iso_type !== undefined && container?.iso_type !== undefined && appointment.iso_type !== container.iso_type) differs.push(`ISO type ${container.iso_type} (booked ${appointment.iso_type})`);
    add('appointment', differs.length > 0 ? 60 : 0, { type: 'appointment_mismatch', message: `appointment ${appointment.appointment_id}: ${differs.join(', ')}`, severity: 'medium' });
  }

  // Seal: a violation (missing, broken, tampered, not the booked seal) is the gravest finding; unreadable is a doubt.
  const seal = container?.seal;
  const bookedSeal = appointment?.seal_number;
  const status = seal?.status?.toLowerCase();
  let sealViolation: SealViolation | undefined;
  let sealVerified = false;
  if (container === undefined) add('seal', 0);
  else if (seal === undefined || status === 'missing') sealViolation = 'missing';
  else if (status === 'broken' || status === 'tampered') sealViolation = status;
  else if (status !== 'intact' || seal.number === undefined || (seal.confidence ?? 1) < rules.minSealConfidence) {
    add('seal', 50, { type: 'seal_unreadable', message: `seal ${seal.number ?? '(no number)'} status ${seal.status ?? 'unknown'} with confidence ${seal.confidence ?? 'unknown'}: not verified`, severity: 'medium', confidence: seal.confidence ?? 0 });
  } else if (bookedSeal !== undefined && comparable(seal.number) !== comparable(bookedSeal)) sealViolation = 'number_mismatch';
  else {
    sealVerified = true;
    add('seal', 0);
  }
  if (sealViolation !== undefined) {
    const message =
      sealViolation === 'number_mismatch' ? `seal ${seal?.number ?? ''} found, ${bookedSeal ?? ''} booked` : `seal ${sealViolation}${seal?.number === undefined ? '' : ` (${seal.number})`}`;
    add('seal', 100, { type: `seal_${sealViolation}`, message, severity: 'high', confidence: seal?.confidence ?? 1 });
  }

  // Damage: the worst region's severity (unstated: medium), scaled by how sure the detector was.
  let damageSeverity: Severity | undefined;
  let damageScore = 0;
  for (const region of damageRegions) {
    const severity = region.severity ?? 'medium';
    if (damageSeverity === undefined || SEVERITY_ORDER.indexOf(severity) > SEVERITY_ORDER.indexOf(damageSeverity)) damageSeverity = severity;
    damageScore = Math.max(damageScore, SEVERITY_SCORE[severity] * (region.confidence ?? 1));
    anomalies.push({ type: 'damage', message: `${severity} ${region.type}${region.area === undefined ? '' : ` on ${region.area}`}`, severity, confidence: region.confidence ?? 1 });
  }
  add('damage', damageScore);

  // Weight: SOLAS VGM sets no tolerance; UK MCA (MGN 534) enforces the greater of 5% and 500 kg.
  const declared = container?.weight_declared_kg ?? appointment?.weight_declared_kg;
  const estimated = container?.weight_estimated_kg;
  if (declared !== undefined && estimated !== undefined) {
    const tolerance = Math.max((declared * rules.weightTolerancePercent) / 100, rules.weightToleranceKg);
    const deviation = Math.abs(estimated - declared);
    // Just beyond the tolerance is 50, three tolerances beyond is 100.
    const score = deviation <= tolerance ? 0 : Math.min(100, 50 + ((deviation - tolerance) / (2 * tolerance)) * 50);
    add('weight_deviation', score, {
      type: 'weight_deviation',
      message: `declared ${declared} kg, estimated ${estimated} kg: ${Math.round(deviation)} kg apart, beyond the tolerance of ${Math.round(tolerance)} kg (greater of ${rules.weightTolerancePercent}% and ${rules.weightToleranceKg} kg, UK MCA MGN 534 rule for SOLAS VGM)`,
      severity: score >= 75 ? 'high' : 'medium',
      confidence: 1,
    });
  } else add('weight_deviation', 0);

  const factors = (Object.keys(FACTOR_WEIGHTS) as RiskFactorName[]).map((factor) => ({ factor, score: scores.get(factor) ?? 0, weight: FACTOR_WEIGHTS[factor] }));
  const riskScore = Math.min(100, round1(factors.reduce((sum, f) => sum + f.score * f.weight, 0)));
  return {
    riskScore,
    factors,
    anomalies,
    // What OCR/LPR read agrees with itself (ISO 6346) and with the booking; nothing read where a container stands is no match.
    ocrMatch: !containerInvalid && !containerMismatch && !plateMismatch && !(container !== undefined && container.id === undefined),
    sealVerified,
    damageDetected: damageRegions.length > 0,
    ...(damageSeverity === undefined ? {} : { damageSeverity }),
    ...(sealViolation === undefined ? {} : { sealViolation }),
    containerMismatch,
    plateMismatch,
    containerIdInvalid: containerInvalid,
  };
}
