import { describe, expect, it } from 'vitest';
import { EVENT_TYPES, eventProblems } from '../../../events/event-types.ts';
import { EVENT_CATEGORIES } from '../../../schemas/event.ts';

describe('the event type table', () => {
  it('holds every type of the spec table with its category and severity', () => {
    // Spec "Event categories and types", row by row (blank severities are ours to decide). zone_exit and
    // dwell_threshold vary since issue 23 (a zone's alert rules set their level); the spec's low and medium
    // stay their defaults (test/unit/processors/maritime/rules: vessel-zone-state dwell and alert-rules).
    const spec: [string, string, string | undefined][] = [
      ['gate_transaction_created', 'gate', 'low'], ['ocr_mismatch', 'gate', 'medium'], ['seal_violation', 'gate', 'high'],
      ['damage_detected', 'gate', 'medium'], ['gate_override', 'gate', 'medium'], ['gate_locked', 'gate', 'high'],
      ['motion_detected', 'perimeter', 'medium'], ['perimeter_breach', 'perimeter', 'high'], ['fence_tamper', 'perimeter', 'high'],
      ['camera_offline', 'perimeter', 'medium'], ['zone_entry', 'maritime', 'varies'], ['zone_exit', 'maritime', 'varies'],
      ['ais_gap', 'maritime', 'high'], ['risk_score_change', 'maritime', 'varies'], ['dwell_threshold', 'maritime', 'varies'],
      ['speed_anomaly', 'maritime', 'medium'], ['mission_launched', 'drone', 'low'], ['mission_completed', 'drone', 'low'],
      ['evidence_captured', 'drone', 'low'], ['drone_low_battery', 'drone', 'medium'], ['drone_lost_link', 'drone', 'high'],
      ['mission_aborted', 'drone', 'medium'], ['incident_created', 'system', undefined], ['incident_resolved', 'system', undefined],
      ['system_health_change', 'system', undefined],
    ];
    for (const [type, category, severity] of spec) {
      const rule = EVENT_TYPES[type as keyof typeof EVENT_TYPES];
      expect(rule, type).toBeDefined();
      expect(rule.category, type).toBe(category);
      if (severity !== undefined) expect(rule.severity, type).toBe(severity);
    }
  });

  it('gives every category at least one type, decision included', () => {
    const used = new Set(Object.values(EVENT_TYPES).map((r) => r.category));
    expect([...used].sort()).toEqual([...EVENT_CATEGORIES].sort());
  });
});

describe('eventProblems', () => {
  it('finds nothing wrong with a consistent event, whatever severity a varying type has', () => {
    expect(eventProblems({ type: 'zone_exit', category: 'maritime', severity: 'low' })).toEqual([]);
    expect(eventProblems({ type: 'zone_entry', category: 'maritime', severity: 'critical' })).toEqual([]);
    expect(eventProblems({ type: 'zone_entry', category: 'maritime', severity: 'low' })).toEqual([]);
    // A zone's alert rules (issue 23) set these two, whose spec severities (low, medium) are only defaults.
    expect(eventProblems({ type: 'zone_exit', category: 'maritime', severity: 'high' })).toEqual([]);
    expect(eventProblems({ type: 'dwell_threshold', category: 'maritime', severity: 'critical' })).toEqual([]);
  });

  it('refuses an unknown type, and only says that', () => {
    expect(eventProblems({ type: 'vessel_teleported', category: 'maritime', severity: 'low' })).toEqual([
      { path: '/type', message: 'unknown event type "vessel_teleported"' },
    ]);
    // Inherited object keys are not event types.
    expect(eventProblems({ type: 'toString', category: 'system', severity: 'low' })[0]?.path).toBe('/type');
  });

  it('refuses a category other than the type\'s', () => {
    expect(eventProblems({ type: 'seal_violation', category: 'maritime', severity: 'high' })).toEqual([
      { path: '/category', message: 'seal_violation events are in category gate, not maritime' },
    ]);
  });

  it('refuses a severity other than a fixed one, and lists every problem', () => {
    expect(eventProblems({ type: 'speed_anomaly', category: 'gate', severity: 'critical' })).toEqual([
      { path: '/category', message: 'speed_anomaly events are in category maritime, not gate' },
      { path: '/severity', message: 'speed_anomaly events are medium, not critical' },
    ]);
  });
});
