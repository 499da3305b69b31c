import { describe, expect, it } from 'vitest';
import { DEFAULT_ZONE_RULES_CONFIG } from '../../../../../processors/maritime/rules/config.ts';
import { dwellPolicy } from '../../../../../processors/maritime/rules/dwell-policy.ts';
import { config, makeZone, MINUTE } from './zone-fixtures.ts';

describe('dwellPolicy', () => {
  it.each([
    ['exclusion', 0],
    ['restricted', 15],
    ['monitoring', 60],
    ['anchorage', 1440],
  ] as const)('gives a %s zone a default threshold of %i minutes', (type, minutes) => {
    expect(dwellPolicy(makeZone({ type }), DEFAULT_ZONE_RULES_CONFIG).threshold_minutes).toBe(minutes);
  });

  it('uses the spec reset window and escalation ladder by default', () => {
    const policy = dwellPolicy(makeZone(), DEFAULT_ZONE_RULES_CONFIG);
    expect(policy.reset_window_minutes).toBe(30);
    expect(policy.escalation.map((step) => [step.after_minutes, step.action])).toEqual([
      [15, 'notify_supervisor'],
      [30, 'escalate_to_port_authority'],
      [60, 'escalate_to_coast_guard'],
    ]);
  });

  it('counts escalation minutes from the threshold, not from entry', () => {
    const policy = dwellPolicy(makeZone({ type: 'restricted' }), DEFAULT_ZONE_RULES_CONFIG);
    expect(policy.rungs_ms).toEqual([15 * MINUTE, 30 * MINUTE, 45 * MINUTE, 75 * MINUTE]);
  });

  it('lets a zone override each field on its own', () => {
    const zone = makeZone({
      type: 'anchorage',
      dwell: { threshold_minutes: 120, escalation: [{ after_minutes: 30, action: 'escalate_to_coast_guard' }, { after_minutes: 10, action: 'notify_supervisor' }] },
    });
    const policy = dwellPolicy(zone, DEFAULT_ZONE_RULES_CONFIG);
    expect(policy.threshold_minutes).toBe(120);
    expect(policy.reset_window_minutes).toBe(30);
    expect(policy.escalation.map((step) => step.after_minutes)).toEqual([10, 30]);
    expect(policy.rungs_ms).toEqual([120 * MINUTE, 130 * MINUTE, 150 * MINUTE]);
  });

  it('overrides the reset window per zone', () => {
    expect(dwellPolicy(makeZone({ dwell: { reset_window_minutes: 5 } }), DEFAULT_ZONE_RULES_CONFIG).reset_window_ms).toBe(5 * MINUTE);
  });

  it('has no threshold or ladder when dwell is disabled for the zone', () => {
    const policy = dwellPolicy(makeZone({ dwell: { enabled: false } }), DEFAULT_ZONE_RULES_CONFIG);
    expect(policy.threshold_minutes).toBeNull();
    expect(policy.rungs_ms).toEqual([]);
  });

  it('lets a zone enable dwell alerts that the site disabled', () => {
    const site = config({ dwell_time: { ...DEFAULT_ZONE_RULES_CONFIG.dwell_time, enabled: false } });
    expect(dwellPolicy(makeZone(), site).threshold_minutes).toBeNull();
    expect(dwellPolicy(makeZone({ dwell: { enabled: true } }), site).threshold_minutes).toBe(15);
  });

  it('follows a change of the site configuration for the same zone object', () => {
    const zone = makeZone();
    expect(dwellPolicy(zone, DEFAULT_ZONE_RULES_CONFIG).threshold_minutes).toBe(15);
    const site = config({ dwell_time: { ...DEFAULT_ZONE_RULES_CONFIG.dwell_time, thresholds: [{ zone_type: 'restricted', max_dwell_minutes: 20 }] } });
    expect(dwellPolicy(zone, site).threshold_minutes).toBe(20);
  });

  it('has no threshold for a zone type the site configuration does not list', () => {
    const site = config({ dwell_time: { ...DEFAULT_ZONE_RULES_CONFIG.dwell_time, thresholds: [] } });
    expect(dwellPolicy(makeZone({ type: 'monitoring' }), site).threshold_minutes).toBeNull();
  });
});
