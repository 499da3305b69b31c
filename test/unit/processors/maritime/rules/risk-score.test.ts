import { describe, expect, it } from 'vitest';
import { decayed, riskSeverity, RISK_HALF_LIFE_MS, updateRisk } from '../../../../../processors/maritime/rules/risk-score.ts';
import { newVesselState } from '../../../../../processors/maritime/rules/vessel-state.ts';
import { MMSI, T0 } from './zone-fixtures.ts';

const finding = (type: string, metadata: Record<string, unknown> = {}) => ({ type, metadata }) as never;

describe('vessel risk score', () => {
  it('adds weights, announces a change of 20 points or more, with the severity of the new score', () => {
    const vessel = newVesselState(MMSI);
    expect(updateRisk(vessel, [finding('speed_anomaly')], T0)).toBeUndefined();
    expect(vessel.rules?.risk?.score).toBe(10);
    const change = updateRisk(vessel, [finding('ais_gap')], T0);
    expect(change).toMatchObject({ type: 'risk_score_change', severity: 'medium', metadata: { risk_score: 25, previous_risk_score: 0, factors: ['ais_gap'] } });
    expect(updateRisk(vessel, [finding('identity_conflict'), finding('position_jump'), finding('vessel_type_violation')], T0)).toMatchObject({ severity: 'critical', metadata: { risk_score: 100 } });
  });
  it('decays with a half-life of 6 hours and forgets a vessel back near zero', () => {
    const vessel = newVesselState(MMSI);
    updateRisk(vessel, [finding('position_jump')], T0);
    expect(decayed(vessel.rules?.risk, T0 + RISK_HALF_LIFE_MS)).toBeCloseTo(10);
    // 20 -> 5 after 12 h: a new 20-point finding takes it to 25, only 20 above the announced 20 decayed to 5.
    expect(updateRisk(vessel, [finding('position_jump')], T0 + 2 * RISK_HALF_LIFE_MS)).toMatchObject({ metadata: { risk_score: 25, previous_risk_score: 5 } });
    updateRisk(vessel, [], T0 + 20 * RISK_HALF_LIFE_MS);
    expect(vessel.rules?.risk).toBeUndefined();
  });
  it('counts presence only when it alerts in an exclusion or restricted zone, and records not at all', () => {
    const vessel = newVesselState(MMSI);
    updateRisk(vessel, [finding('zone_entry', { alerting: true, zone_type: 'monitoring' }), finding('zone_exit'), finding('ais_gap_end'), finding('zone_entry', { alerting: false, zone_type: 'restricted' })], T0);
    expect(vessel.rules?.risk).toBeUndefined();
    updateRisk(vessel, [finding('zone_entry', { alerting: true, zone_type: 'exclusion' })], T0);
    expect(vessel.rules?.risk?.score).toBe(15);
  });
  it('bands severities at 25, 50 and 75', () => {
    expect([24.9, 25, 49.9, 50, 74.9, 75].map(riskSeverity)).toEqual(['low', 'medium', 'medium', 'high', 'high', 'critical']);
  });
});
