import { describe, expect, it } from 'vitest';
import { findingsOf } from '../../../../ingest/gate/readings.ts';
import { checkContainerId } from '../../../../ingest/gate/iso6346.ts';
import { decide, DEFAULT_THRESHOLDS, thresholdProblems } from '../../../../processors/gate/decision.ts';
import { assessRisk, DEFAULT_RISK_RULES, FACTOR_WEIGHTS } from '../../../../processors/gate/risk.ts';
import { DEFAULT_APPOINTMENT_POLICY } from '../../../../processors/gate/appointment-policy.ts';
import { defaultGateAction, overrideRefusal } from '../../../../processors/gate/override.ts';
import { buildTransaction, listView, detailView } from '../../../../processors/gate/transaction.ts';
import type { GateAppointment } from '../../../../schemas/gate-appointment.ts';
import type { GateReading, GateReadingRecord } from '../../../../schemas/gate-reading.ts';
import { reading } from '../../../support/gate-readings.ts';

const APPOINTMENT: GateAppointment = { appointment_id: 'apt-551', plate: 'AB123CD', carrier: 'Nordic Haulage', container_id: 'CSQU3054383', iso_type: '22G1', seal_number: 'SL-778812', weight_declared_kg: 18_200 };

function record(overrides: Partial<GateReading> = {}): GateReadingRecord {
  const r = reading({ inspection: { damage_regions: [], images: [] }, ...overrides });
  return { ...r, source: 'test', received_at: '2025-03-01T08:30:00.000Z', findings: findingsOf(r) };
}
const base = reading().container!;
const withContainer = (c: Partial<typeof base>) => ({ container: { ...base, ...c } });
// null: no appointment (undefined would take the default).
const score = (r: GateReadingRecord, a: GateAppointment | null = APPOINTMENT, required = true) => assessRisk(r, { appointment: a ?? undefined, required }, DEFAULT_RISK_RULES);
const factor = (r: ReturnType<typeof score>, name: string) => r.factors.find((f) => f.factor === name)?.score;

describe('ISO 6346 as the gate processor sees it', () => {
  it('accepts a valid id, and flags a wrong check digit and a malformed id in the findings', () => {
    expect(checkContainerId('CSQU3054383')).toBe('valid');
    expect(checkContainerId('CSQU 305438-3')).toBe('valid');
    expect(checkContainerId('CSQU3054384')).toBe('check_digit_invalid');
    expect(record(withContainer({ id: 'CSQU3054384' })).findings).toEqual(['container_check_digit_invalid']);
    expect(record(withContainer({ id: 'HELLO' })).findings).toEqual(['container_id_malformed']);
  });
});

describe('risk scoring', () => {
  it('scores a clean truck matching its appointment at 0, listing every factor with its weight', () => {
    const r = score(record());
    expect(r.riskScore).toBe(0);
    expect(r.factors.map((f) => f.factor)).toEqual(Object.keys(FACTOR_WEIGHTS));
    expect(r.factors.every((f) => f.score === 0 && f.weight === FACTOR_WEIGHTS[f.factor])).toBe(true);
    expect(r).toMatchObject({ ocrMatch: true, sealVerified: true, damageDetected: false, containerMismatch: false, anomalies: [] });
  });

  it('scores a broken, missing or tampered seal 100 on the seal factor (weight 0.6)', () => {
    for (const status of ['broken', 'tampered', 'missing']) {
      const r = score(record(withContainer({ seal: { number: 'SL-778812', status, confidence: 0.9 } })));
      expect(factor(r, 'seal')).toBe(100);
      expect(r.riskScore).toBe(60);
      expect(r.sealViolation).toBe(status);
      expect(r.sealVerified).toBe(false);
      expect(r.anomalies[0]).toMatchObject({ type: `seal_${status}`, severity: 'high' });
    }
    expect(score(record(withContainer({ seal: undefined }))).sealViolation).toBe('missing');
  });

  it('treats another seal number than the booked one as a violation, and a poorly read seal as unreadable', () => {
    expect(score(record(withContainer({ seal: { number: 'SL-000001', status: 'intact', confidence: 0.9 } }))).sealViolation).toBe('number_mismatch');
    const unreadable = score(record(withContainer({ seal: { number: 'SL-778812', status: 'intact', confidence: 0.2 } })));
    expect(unreadable.sealViolation).toBeUndefined();
    expect(factor(unreadable, 'seal')).toBe(50);
    expect(unreadable.sealVerified).toBe(false);
  });

  it('flags a container other than the booked one, but counts a failed check digit once, as a misread', () => {
    const other = score(record(withContainer({ id: 'MSCU1234566' })));
    expect(checkContainerId('MSCU1234566')).toBe('valid');
    expect(other.containerMismatch).toBe(true);
    expect(other.ocrMatch).toBe(false);
    expect(factor(other, 'container_appointment_mismatch')).toBe(100);
    const misread = score(record(withContainer({ id: 'CSQU3054384' })));
    expect(misread.containerIdInvalid).toBe(true);
    expect(misread.containerMismatch).toBe(false);
    expect(factor(misread, 'container_check_digit')).toBe(100);
    expect(misread.riskScore).toBe(35);
  });

  it('grows OCR confidence risk linearly below the threshold', () => {
    const r = score(record({ vehicle: { ...reading().vehicle, plate_confidence: 0.425 } }));
    expect(factor(r, 'plate_ocr_confidence')).toBe(50);
    expect(factor(score(record({ vehicle: { ...reading().vehicle, plate_confidence: 0.85 } })), 'plate_ocr_confidence')).toBe(0);
  });

  it('applies the weight tolerance: greater of 5% and 500 kg (UK MCA), configurable', () => {
    // 5% of 18,200 is 910 kg: 900 kg off is within, 1,000 kg beyond.
    expect(factor(score(record(withContainer({ weight_estimated_kg: 19_100 }))), 'weight_deviation')).toBe(0);
    const beyond = score(record(withContainer({ weight_estimated_kg: 19_200 })));
    expect(factor(beyond, 'weight_deviation')).toBeGreaterThanOrEqual(50);
    expect(beyond.anomalies[0]!.message).toContain('UK MCA');
    // Light box: 500 kg applies (5% of 4,000 is 200).
    expect(factor(score(record(withContainer({ weight_declared_kg: 4_000, weight_estimated_kg: 4_450 }))), 'weight_deviation')).toBe(0);
    expect(factor(assessRisk(record(withContainer({ weight_declared_kg: 4_000, weight_estimated_kg: 4_450 })), { appointment: APPOINTMENT, required: true }, { ...DEFAULT_RISK_RULES, weightToleranceKg: 100 }), 'weight_deviation')).toBeGreaterThan(0);
    // Three tolerances beyond is the maximum.
    expect(factor(score(record(withContainer({ weight_estimated_kg: 18_200 + 4 * 910 }))), 'weight_deviation')).toBe(100);
  });

  it('scores damage by the worst region severity and the detector confidence', () => {
    const r = score(record({ inspection: { damage_regions: [{ type: 'dent', severity: 'low', confidence: 1 }, { type: 'hole', severity: 'high', confidence: 0.5 }] } }));
    expect(r.damageDetected).toBe(true);
    expect(r.damageSeverity).toBe('high');
    expect(factor(r, 'damage')).toBe(40);
    expect(r.anomalies.filter((a) => a.type === 'damage')).toHaveLength(2);
  });

  it('scores a missing appointment, and a mismatched carrier or ISO type', () => {
    const none = score(record(), null);
    expect(factor(none, 'appointment')).toBe(100);
    expect(none.anomalies[0]).toMatchObject({ type: 'appointment_missing' });
    expect(none.riskScore).toBe(30);
    const other = score(record(), { ...APPOINTMENT, carrier: 'Other Haulage', iso_type: '45G1' });
    expect(factor(other, 'appointment')).toBe(60);
    expect(other.anomalies[0]!.message).toContain('carrier');
    expect(factor(score(record({ vehicle: { ...reading().vehicle, plate: 'ZZ999ZZ' } })), 'plate_appointment_mismatch')).toBe(100);
  });

  it('adds no risk for a missing or unknown appointment where bookings are optional, and still checks one that is there', () => {
    const none = score(record(), null, false);
    expect(factor(none, 'appointment')).toBe(0);
    expect(none.riskScore).toBe(0);
    expect(none.anomalies).toEqual([]);
    expect(decide(none, DEFAULT_THRESHOLDS).status).toBe('approved');
    expect(decide(score(record(), null, true), DEFAULT_THRESHOLDS).status).toBe('flagged');
    const booked = score(record({ vehicle: { ...reading().vehicle, plate: 'ZZ999ZZ' } }), APPOINTMENT, false);
    expect(factor(booked, 'plate_appointment_mismatch')).toBe(100);
    // A seal violation flags or holds with or without a booking.
    expect(decide(score(record(withContainer({ seal: { number: 'SL-1', status: 'broken' } })), null, false), DEFAULT_THRESHOLDS).status).toBe('held');
  });

  it('caps the composite at 100', () => {
    const r = score(record({ vehicle: { ...reading().vehicle, plate: 'ZZ999ZZ', plate_confidence: 0 }, container: { ...base, id: 'MSCU1234566', ocr_confidence: 0, seal: { status: 'broken' } } }));
    expect(r.riskScore).toBe(100);
  });
});

describe('decision', () => {
  const decided = (r: GateReadingRecord, a: GateAppointment | null = APPOINTMENT) => decide(score(r, a), DEFAULT_THRESHOLDS);

  it('approves below the manual review threshold, rejects from the reject threshold', () => {
    expect(decided(record())).toMatchObject({ decision: 'auto_approved', status: 'approved' });
    const rejected = decided(record(withContainer({ id: 'MSCU1234566', seal: { number: 'SL-778812', status: 'broken' } })));
    expect(rejected).toMatchObject({ decision: 'auto_rejected', status: 'rejected' });
    expect(rejected.rule).toContain('>= reject threshold 70');
  });

  it('holds for a seal violation, another container or high damage; flags doubts about the data', () => {
    expect(decided(record(withContainer({ seal: { number: 'SL-778812', status: 'broken' } })))).toMatchObject({ decision: 'manual_review', status: 'held', holdReasons: ['seal_broken'] });
    expect(decided(record(withContainer({ id: 'MSCU1234566' })))).toMatchObject({ status: 'held', holdReasons: ['container_mismatch'] });
    expect(decided(record({ inspection: { damage_regions: [{ type: 'hole', severity: 'high', confidence: 0.9 }] } }))).toMatchObject({ status: 'held', holdReasons: ['damage_high'] });
    expect(decided(record(withContainer({ id: 'CSQU3054384' })))).toMatchObject({ decision: 'manual_review', status: 'flagged' });
    expect(decided(record(), null)).toMatchObject({ decision: 'manual_review', status: 'flagged' });
  });

  it('uses configured thresholds, and refuses a reject threshold not above the review threshold', () => {
    expect(decide(score(record(), null), { manualReviewAt: 50, rejectAt: 90 }).status).toBe('approved');
    expect(decide(score(record(), null), { manualReviewAt: 10, rejectAt: 30 }).status).toBe('rejected');
    expect(thresholdProblems({ manualReviewAt: 50, rejectAt: 50 })).toHaveLength(1);
    expect(thresholdProblems(DEFAULT_THRESHOLDS)).toEqual([]);
  });
});

describe('override rules', () => {
  it('allows flagged and held, rejected only for admin, and names the transaction and status otherwise', () => {
    expect(overrideRefusal('gtx_1', 'flagged', false)).toBeUndefined();
    expect(overrideRefusal('gtx_1', 'held', false)).toBeUndefined();
    expect(overrideRefusal('gtx_1', 'rejected', true)).toBeUndefined();
    // A rejected one without admin: the caller's scopes are what is missing, so 403 as any finer scope (issue 33).
    expect(overrideRefusal('gtx_1', 'rejected', false)).toEqual({ code: 'forbidden', message: expect.stringMatching(/gtx_1.*rejected.*admin/) });
    expect(overrideRefusal('gtx_1', 'approved', true)).toEqual({ code: 'resource_conflict', message: expect.stringMatching(/gtx_1 is approved/) });
    expect(overrideRefusal('gtx_1', 'overridden', true)).toEqual({ code: 'resource_conflict', message: expect.stringMatching(/gtx_1 is overridden/) });
    expect(overrideRefusal('gtx_1', 'overridden', false)).toEqual({ code: 'resource_conflict', message: expect.stringMatching(/gtx_1 is overridden/) });
    expect(defaultGateAction('approved')).toBe('open');
    expect(defaultGateAction('rejected')).toBe('hold');
  });
});

describe('transaction views', () => {
  it('keeps detail-only fields out of the list view', () => {
    const tx = buildTransaction(record({ inspection: { damage_regions: [{ type: 'dent', severity: 'low', confidence: 0.7 }], images: [{ type: 'front', url: 'https://cams.example/f.jpg', captured_at: '2025-03-01T08:29:57Z' }] } }), { appointment: APPOINTMENT, required: true }, { risk: DEFAULT_RISK_RULES, thresholds: DEFAULT_THRESHOLDS, appointments: DEFAULT_APPOINTMENT_POLICY }, Date.parse('2025-03-01T08:30:00.250Z'));
    expect(tx.body.processing_time_ms).toBe(250);
    const state = { status: tx.status, decision: tx.decision, completed_at: tx.completedAt, operator: null };
    const list = listView(tx.body, state) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    for (const field of ['plate_image_url', 'driver_id', 'appointment_id']) expect(list.vehicle).not.toHaveProperty(field);
    for (const field of ['ocr_image_url', 'weight_declared_kg', 'weight_estimated_kg']) expect(list.container).not.toHaveProperty(field);
    expect(list.container.seal).not.toHaveProperty('seal_image_url');
    expect(list.inspection).not.toHaveProperty('damage_regions');
    expect(list.inspection).not.toHaveProperty('images');
    expect(list.inspection.anomalies[0]).not.toHaveProperty('confidence');
    expect(list).not.toHaveProperty('risk_factors');
    expect(list).not.toHaveProperty('audit_trail');
    const detail = detailView(tx.body, state, []) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(detail.vehicle.driver_id).toBe('drv-88');
    expect(detail.container.seal.seal_image_url).toBeDefined();
    expect(detail.inspection.images).toHaveLength(1);
    expect(detail.inspection.anomalies[0].confidence).toBe(0.7);
    expect(detail.risk_factors).toHaveLength(Object.keys(FACTOR_WEIGHTS).length);
    expect(detail).not.toHaveProperty('reading_id');
    expect(detail.lane).toBe(list.lane);
    expect(list.lane).toBe(tx.lane);
  });
});
