import { describe, expect, it } from 'vitest';
import { findingsOf } from '../../../ingest/gate/readings.ts';
import { assessRisk, DEFAULT_RISK_RULES } from '../../../processors/gate/risk.ts';
import type { GateAppointment } from '../../../schemas/gate-appointment.ts';
import type { GateReading, GateReadingRecord } from '../../../schemas/gate-reading.ts';
import { factorOfAnomaly, mainFinding, placeText, riskLines, sealText, truckText } from '../../../console/src/gate-format.ts';
import { reading } from '../../support/gate-readings.ts';

const BOOKED: GateAppointment = { appointment_id: 'apt-551', plate: 'ZZ999ZZ', carrier: 'Other Haulage', container_id: 'MSCU1234565', iso_type: '45G1', seal_number: 'SL-000001', weight_declared_kg: 10_000 };
const record = (overrides: Partial<GateReading>): GateReadingRecord => {
  const r = reading(overrides);
  return { ...r, source: 'test', received_at: '2025-03-01T08:30:00.000Z', findings: findingsOf(r) };
};

describe('the gate review\'s risk lines', () => {
  // Every kind of finding the processor makes, each scored under a factor: the console must put each under it.
  const readings: [GateReadingRecord, GateAppointment | undefined][] = [
    [record({ vehicle: { plate: 'AB123CD', plate_confidence: 0.2 }, container: { ...reading().container!, ocr_confidence: 0.3, seal: { number: 'SL-1', status: 'broken' } } }), BOOKED],
    [record({ vehicle: { plate_confidence: 0.9 } as never, container: { ...reading().container!, id: 'CSQU3054384', seal: { number: 'SL-1', status: 'intact', confidence: 0.2 } } }), undefined],
    [record({ container: { ...reading().container!, id: 'NOTANID', seal: undefined, weight_declared_kg: 10_000, weight_estimated_kg: 30_000 } }), BOOKED],
    [record({ container: { ...reading().container!, id: undefined, seal: { number: 'SL-2', status: 'intact', confidence: 0.9 } } }), BOOKED],
  ];

  it('puts every finding of the processor under the factor that scored it', () => {
    let findings = 0;
    for (const [r, booking] of readings) {
      const risk = assessRisk(r, { appointment: booking, required: true }, DEFAULT_RISK_RULES);
      const scoring = new Set(risk.factors.filter((f) => f.score > 0).map((f) => f.factor as string));
      for (const a of risk.anomalies) {
        findings += 1;
        expect(scoring, `${a.type}: ${a.message}`).toContain(factorOfAnomaly(a.type));
      }
      const lines = riskLines(risk.factors, risk.anomalies);
      expect(lines.other).toEqual([]);
      expect(lines.scored.flatMap((l) => l.messages).sort()).toEqual(risk.anomalies.map((a) => a.message).sort());
    }
    expect(findings).toBeGreaterThanOrEqual(10);
  });

  it('lists the scoring factors heaviest first with their points, and names the clear ones', () => {
    const lines = riskLines(
      [{ factor: 'seal', score: 100, weight: 0.6 }, { factor: 'damage', score: 20, weight: 0.6 }, { factor: 'plate_ocr_confidence', score: 0, weight: 0.15 }],
      [{ type: 'damage', message: 'low dent on roof', severity: 'low' }, { type: 'seal_broken', message: 'seal broken (DK4418001)', severity: 'high' }, { type: 'new_kind', message: 'something new', severity: 'low' }],
    );
    expect(lines.scored.map((l) => [l.name, l.points, l.messages])).toEqual([['seal', 60, ['seal broken (DK4418001)']], ['damage', 12, ['low dent on roof']]]);
    expect(lines.clear).toEqual(['plate reading']);
    expect(lines.other).toEqual(['something new']);
  });
});

describe('the gate review\'s row and detail wording', () => {
  it('names the truck and box by the specification\'s fields, and says what was not read', () => {
    expect(truckText({ container: { id: 'MSCU1234565' }, vehicle: { plate: 'AB 123 CD' } })).toBe('MSCU1234565 · AB 123 CD');
    expect(truckText({})).toBe('no container id read · no plate read');
  });
  it('writes the seal with its number and status, verified or not', () => {
    expect(sealText({ container: { seal: { number: 'DK4418001', status: 'broken' } }, inspection: { seal_verified: false } })).toBe('seal DK4418001 broken');
    expect(sealText({ container: { seal: { number: 'SL-1', status: 'intact' } }, inspection: { seal_verified: true } })).toBe('seal SL-1 intact, verified');
    expect(sealText({ container: {} })).toBe('no seal read');
  });
  it('puts the lane beside the gate when the reading has one', () => {
    expect(placeText({ gate: 'gate-north', lane: 'lane-2' })).toBe('gate-north lane 2');
    expect(placeText({ gate: 'gate-north', lane: '4' })).toBe('gate-north lane 4');
    expect(placeText({ gate: 'gate-north' })).toBe('gate-north');
  });
  it('gives the row the gravest finding, and how many more there are', () => {
    expect(mainFinding([{ type: 'damage', message: 'low dent', severity: 'low' }, { type: 'seal_broken', message: 'seal broken (DK4418001)', severity: 'high' }])).toBe('seal broken (DK4418001) (+1 more)');
    expect(mainFinding([])).toBe('');
  });
});
