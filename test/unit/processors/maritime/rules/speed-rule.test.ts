import { describe, expect, it } from 'vitest';
import { speedVerdict } from '../../../../../processors/maritime/rules/speed-rule.ts';
import type { ZoneRuleSet } from '../../../../../schemas/maritime-rules.ts';
import { runVessel, types, type Fix } from './rule-harness.ts';
import { makeZone, zoneMap } from './zone-fixtures.ts';

const zone = makeZone({ id: 'z1', name: 'Harbour', type: 'monitoring' });
const rules = new Map<string, ZoneRuleSet>([['z1', { speed_rules: { max_speed_knots: 6, min_speed_knots: 1, alert_on_violation: true, alert_level: 'medium' } }]]);
const inside = (s: number, sog: number | null): Fix => ({ s, sog, in: ['z1'] });

describe('speedVerdict', () => {
  const rule = { max_speed_knots: 6, min_speed_knots: 1, alert_on_violation: true, alert_level: 'medium' as const };
  it('is violating only strictly beyond a limit, in the band within 0.5 kn of it, clear past that', () => {
    expect(speedVerdict(rule, 6).verdict).toBe('band');
    expect(speedVerdict(rule, 6.01)).toMatchObject({ verdict: 'violating', kind: 'over', limit: 6 });
    expect(speedVerdict(rule, 5.5).verdict).toBe('clear');
    expect(speedVerdict(rule, 5.51).verdict).toBe('band');
    expect(speedVerdict(rule, 0.99)).toMatchObject({ verdict: 'violating', kind: 'under', limit: 1 });
    expect(speedVerdict(rule, 1).verdict).toBe('band');
  });
  it('never judges a report without speed (not available)', () => {
    expect(speedVerdict(rule, null).verdict).toBe('unknown');
  });
});

describe('speed rule', () => {
  it('raises one speed_anomaly per episode, at its second violating report, and ends it with peak and duration', () => {
    const fixes = [inside(0, 5), inside(10, 8), inside(20, 9.5), inside(30, 12), inside(40, 9), inside(50, 5), inside(80, 5), inside(120, 5)];
    const { intents, state } = runVessel(fixes, zoneMap(zone), rules);
    expect(types(intents)).toEqual(['speed_anomaly', 'speed_anomaly_end']);
    expect(intents[0]).toMatchObject({ severity: 'medium', requires_action: true, metadata: { speed_knots: 9.5, limit_knots: 6, limit_kind: 'max', episode_started_at: '2024-06-03T10:00:10.000Z', alert_level: 'medium' } });
    expect(intents[1]).toMatchObject({ severity: 'low', metadata: { peak_speed_knots: 12, duration_seconds: 110, end_reason: 'back_within_limit' } });
    expect(state.rules?.speed).toBeUndefined();
  });

  it('does not alert on one noisy report, nor on reports without speed', () => {
    const { intents } = runVessel([inside(0, 5), inside(10, 9), inside(20, 5), inside(30, null), inside(40, null)], zoneMap(zone), rules);
    expect(intents).toEqual([]);
  });

  it('keeps the episode open while the speed hovers in the hysteresis band', () => {
    const fixes = [inside(0, 7), inside(10, 7), inside(20, 5.8), inside(100, 5.9), inside(200, 7)];
    const { intents } = runVessel(fixes, zoneMap(zone), rules);
    expect(types(intents)).toEqual(['speed_anomaly']);
  });

  it('ends the episode when the vessel leaves the zone, and judges nothing outside it', () => {
    const fixes = [inside(0, 9), inside(10, 9), { s: 20, sog: 9 }, { s: 90, sog: 9 }, { s: 100, sog: 9 }, { s: 110, sog: 9 }];
    const { intents } = runVessel(fixes, zoneMap(zone), rules);
    expect(types(intents)).toEqual(['speed_anomaly', 'speed_anomaly_end']);
    expect(intents[1]?.metadata).toMatchObject({ end_reason: 'left_zone' });
  });

  it('alerts for a speed below the minimum too, and nothing when alert_on_violation is false', () => {
    expect(types(runVessel([inside(0, 0.2), inside(10, 0.1)], zoneMap(zone), rules).intents)).toEqual(['speed_anomaly']);
    const off = new Map<string, ZoneRuleSet>([['z1', { speed_rules: { max_speed_knots: 6, alert_on_violation: false, alert_level: 'medium' } }]]);
    expect(runVessel([inside(0, 9), inside(10, 9)], zoneMap(zone), off).intents).toEqual([]);
  });
});
