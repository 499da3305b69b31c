import { describe, expect, it } from 'vitest';
import { matchAlertRule } from '../../../../../processors/maritime/rules/alert-rule-match.ts';
import type { SecurityEvent } from '../../../../../schemas/event.ts';
import type { AlertRules } from '../../../../../schemas/maritime-rules.ts';

const RULES: AlertRules = {
  on_entry: { alert_level: 'critical', actions: [{ action: 'lock_gates', gates: ['G1'] }] },
  on_dwell: { threshold_minutes: 10, alert_level: 'high', actions: [{ action: 'escalate_to', parties: ['supervisor'] }] },
  on_exit: { alert_level: 'low', actions: [{ action: 'close_incident' }] },
};

function event(type: string, metadata: Record<string, unknown> = {}): SecurityEvent {
  return {
    id: 'evt_00000000000000000000000000000000', type, timestamp: '2026-01-01T00:00:00Z', category: 'maritime', severity: 'high',
    source_module: 'maritime.zones', source_device: '', title: 't', description: '', location: { zone: 'Holmen naval base' },
    metadata, requires_action: true, assigned_to: '', incident_id: null,
  };
}

describe('matchAlertRule', () => {
  it.each([
    ['an alerting zone_entry', event('zone_entry', { alerting: true }), RULES, 'on_entry'],
    ['a zone_entry without the alerting flag (not from the zone step)', event('zone_entry'), RULES, 'on_entry'],
    ['the low record of an authorized entry', event('zone_entry', { alerting: false, authorized: true }), RULES, undefined],
    ['an alerting zone_exit', event('zone_exit', { alerting: true, exit_reason: 'left' }), RULES, 'on_exit'],
    ['a zone_exit off schedule', event('zone_exit', { alerting: false }), RULES, undefined],
    ['the on_dwell dwell_threshold', event('dwell_threshold', { alert_rule: 'on_dwell', threshold_minutes: 10 }), RULES, 'on_dwell'],
    ["the zone's own dwell_threshold", event('dwell_threshold', { threshold_minutes: 15 }), RULES, undefined],
    ['a dwell_escalation', event('dwell_escalation', { action: 'notify_supervisor' }), RULES, undefined],
    ['a zone_approach', event('zone_approach', { alerting: true }), RULES, undefined],
    ['a speed_violation', event('speed_violation'), RULES, undefined],
    ['a zone_entry where the zone has only on_exit', event('zone_entry', { alerting: true }), { on_exit: RULES.on_exit }, undefined],
    ['a zone_exit where the zone has only on_entry', event('zone_exit', { alerting: true }), { on_entry: RULES.on_entry }, undefined],
    ['an on_dwell dwell_threshold where the rule was since removed', event('dwell_threshold', { alert_rule: 'on_dwell' }), { on_entry: RULES.on_entry }, undefined],
    ['any event of a zone without alert rules', event('zone_entry', { alerting: true }), undefined, undefined],
  ] as const)('%s -> %s', (_name, e, rules, trigger) => {
    const match = matchAlertRule(rules, e);
    expect(match?.trigger).toBe(trigger);
    if (trigger !== undefined) expect(match?.rule).toBe(rules?.[trigger]);
  });
});
