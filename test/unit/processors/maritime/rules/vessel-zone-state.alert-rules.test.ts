import { describe, expect, it } from 'vitest';
import { eventProblems } from '../../../../../events/event-types.ts';
import type { RuleZone } from '../../../../../processors/maritime/rules/config.ts';
import type { AlertRules } from '../../../../../schemas/maritime-rules.ts';
import { every, iso, makeZone, MINUTE, MMSI, run, SECOND, T0, timeline, zoneMap, type Report } from './zone-fixtures.ts';

// Issue 23: a zone's alert_rules set the level of its zone_entry / zone_exit and add the on_dwell point.
const IN = { in: ['z1'] };
const zoneWith = (alert_rules: AlertRules | undefined, overrides: Partial<RuleZone> = {}): Map<string, RuleZone> =>
  zoneMap(makeZone({ id: 'z1', type: 'restricted', alert_level: 'medium', ...overrides, ...(alert_rules === undefined ? {} : { alert_rules }) }));
const dwellAlerts = (reports: Report[], zones: Map<string, RuleZone>) =>
  run(reports, zones).intents.filter((intent) => intent.type.startsWith('dwell_'));
const onDwell = (reports: Report[], zones: Map<string, RuleZone>) =>
  dwellAlerts(reports, zones).filter((intent) => intent.metadata.alert_rule === 'on_dwell').map((intent) => intent.timestamp);

describe('alert rules: on_entry and on_exit', () => {
  const stay = [...every(MINUTE, T0, T0 + 5 * MINUTE, IN), ...every(30 * SECOND, T0 + 5 * MINUTE, T0 + 7 * MINUTE)];

  it.each([
    { rule: 'critical', severity: 'critical', requires_action: true },
    { rule: 'high', severity: 'high', requires_action: true },
    { rule: 'low', severity: 'low', requires_action: false },
    { rule: 'info', severity: 'low', requires_action: false },
  ] as const)("gives an alerting zone_entry the on_entry level $rule over the zone's medium", ({ rule, severity, requires_action }) => {
    const entry = run([{ at: T0, ...IN }], zoneWith({ on_entry: { alert_level: rule, actions: [{ action: 'log_event' }] } })).intents[0];
    expect(entry).toMatchObject({ type: 'zone_entry', severity, requires_action, metadata: { alert_level: rule, alert_rule: 'on_entry', alerting: true } });
  });

  it("keeps the zone's own level when the zone has no on_entry (and marks no alert rule)", () => {
    const entry = run([{ at: T0, ...IN }], zoneWith({ on_exit: { alert_level: 'high' } })).intents[0];
    expect(entry).toMatchObject({ type: 'zone_entry', severity: 'medium', metadata: { alert_level: 'medium' } });
    expect(entry?.metadata.alert_rule).toBeUndefined();
  });

  it('leaves the low record of an authorized vessel low: its entry and exit answer to no alert rule', () => {
    const zones = zoneWith({ on_entry: { alert_level: 'critical' }, on_exit: { alert_level: 'high' } }, { authorized_vessels: [{ mmsi_list: [MMSI] }] });
    const { intents } = run(stay, zones);
    expect(intents.map((intent) => [intent.type, intent.severity, intent.requires_action, intent.metadata.alert_rule ?? null])).toEqual([
      ['zone_entry', 'low', false, null],
      ['zone_exit', 'low', false, null],
    ]);
  });

  it('gives an alerting zone_exit the on_exit level; without on_exit the exit stays low', () => {
    const withRule = run(stay, zoneWith({ on_exit: { alert_level: 'high', actions: [{ action: 'close_incident' }] } })).intents[1];
    expect(withRule).toMatchObject({ type: 'zone_exit', timestamp: iso(T0 + 5 * MINUTE), severity: 'high', requires_action: true, metadata: { alert_level: 'high', alert_rule: 'on_exit' } });
    const without = run(stay, zoneWith(undefined)).intents[1];
    expect(without).toMatchObject({ type: 'zone_exit', severity: 'low', requires_action: false });
    expect(without?.metadata.alert_rule).toBeUndefined();
  });

  it('applies rules changed between reports from the next event on (the catalog swaps in new zone objects)', () => {
    const before = zoneWith(undefined);
    const after = zoneWith({ on_entry: { alert_level: 'critical' } });
    const first = run([{ at: T0, ...IN }, { at: T0 + MINUTE }, { at: T0 + 2 * MINUTE }, { at: T0 + 3 * MINUTE }], before);
    const second = run([{ at: T0 + 40 * MINUTE, ...IN }], after, undefined, first.state);
    expect(first.intents[0]?.severity).toBe('medium');
    expect(second.intents[0]).toMatchObject({ type: 'zone_entry', severity: 'critical', metadata: { alert_rule: 'on_entry' } });
  });
});

describe('alert rules and the event type table', () => {
  it.each(['info', 'low', 'medium', 'high', 'critical'] as const)('gives events at level %s that the event store accepts', (level) => {
    const zones = zoneWith({ on_entry: { alert_level: level }, on_dwell: { threshold_minutes: 2, alert_level: level }, on_exit: { alert_level: level } });
    const { intents } = run([...every(MINUTE, T0, T0 + 20 * MINUTE, IN), ...every(30 * SECOND, T0 + 20 * MINUTE, T0 + 22 * MINUTE)], zones);
    expect(intents.map((i) => i.type)).toEqual(['zone_entry', 'dwell_threshold', 'dwell_threshold', 'zone_exit']);
    expect(intents.flatMap((i) => eventProblems(i))).toEqual([]);
  });
});

describe('alert rules: on_dwell', () => {
  const tenMinutesHigh: AlertRules = { on_dwell: { threshold_minutes: 10, alert_level: 'high', actions: [{ action: 'escalate_to', parties: ['supervisor'] }] } };

  it("raises a dwell_threshold at the on_dwell point with the rule's level, beside the zone's own threshold", () => {
    const alerts = dwellAlerts(every(30 * SECOND, T0, T0 + 20 * MINUTE, IN), zoneWith(tenMinutesHigh));
    expect(alerts.map((a) => [a.type, a.timestamp, a.severity, a.metadata.alert_rule ?? null, a.metadata.threshold_minutes])).toEqual([
      ['dwell_threshold', iso(T0 + 10 * MINUTE), 'high', 'on_dwell', 10],
      ['dwell_threshold', iso(T0 + 15 * MINUTE), 'medium', null, 15],
    ]);
    expect(alerts[0]).toMatchObject({
      requires_action: true,
      title: "NORDIC STAR (MMSI 219000001) 10 min in restricted zone North Basin (the zone's on_dwell alert rule)",
      metadata: { alert_level: 'high', dwell_minutes: 10, crossed_at: iso(T0 + 10 * MINUTE), visit_started_at: iso(T0) },
    });
    expect(alerts[0]?.key).not.toBe(alerts[1]?.key);
  });

  it('fires once per visit, however long the vessel stays', () => {
    expect(onDwell(every(MINUTE, T0, T0 + 200 * MINUTE, IN), zoneWith(tenMinutesHigh))).toEqual([iso(T0 + 10 * MINUTE)]);
  });

  it('takes its place among the rungs fired together after a gap in reports', () => {
    const zones = zoneWith({ on_dwell: { threshold_minutes: 20, alert_level: 'critical' } }, { dwell: { escalation: [{ after_minutes: 10, action: 'notify_supervisor' }] } });
    const alerts = dwellAlerts([{ at: T0, ...IN }, { at: T0 + 28 * MINUTE, ...IN }], zones);
    expect(alerts.map((a) => [a.type, a.metadata.alert_rule ?? null, a.timestamp, a.metadata.crossed_at])).toEqual([
      ['dwell_threshold', null, iso(T0 + 28 * MINUTE), iso(T0 + 15 * MINUTE)],
      ['dwell_threshold', 'on_dwell', iso(T0 + 28 * MINUTE), iso(T0 + 20 * MINUTE)],
      ['dwell_escalation', null, iso(T0 + 28 * MINUTE), iso(T0 + 25 * MINUTE)],
    ]);
  });

  it('carries dwell over a re-entry within the reset window, and does not fire again in the visit', () => {
    // 6 minutes inside, out (exit confirmed at T0 + 6 min), back at T0 + 20 min: 4 more minutes reach 10.
    const reports = [
      ...every(MINUTE, T0, T0 + 6 * MINUTE, IN),
      ...every(30 * SECOND, T0 + 6 * MINUTE, T0 + 8 * MINUTE),
      ...every(MINUTE, T0 + 20 * MINUTE, T0 + 30 * MINUTE, IN),
      ...every(30 * SECOND, T0 + 30 * MINUTE, T0 + 32 * MINUTE),
      ...every(MINUTE, T0 + 40 * MINUTE, T0 + 60 * MINUTE, IN),
    ];
    expect(onDwell(reports, zoneWith(tenMinutesHigh))).toEqual([iso(T0 + 24 * MINUTE)]);
  });

  it('fires again in a new visit, after the reset window', () => {
    const reports = [
      ...every(MINUTE, T0, T0 + 12 * MINUTE, IN),
      ...every(30 * SECOND, T0 + 12 * MINUTE, T0 + 14 * MINUTE),
      ...every(MINUTE, T0 + 60 * MINUTE, T0 + 75 * MINUTE, IN),
    ];
    expect(onDwell(reports, zoneWith(tenMinutesHigh))).toEqual([iso(T0 + 10 * MINUTE), iso(T0 + 70 * MINUTE)]);
  });

  it('waits while the vessel raises no alert (authorized), as the dwell thresholds do', () => {
    const zones = zoneWith(tenMinutesHigh, { authorized_vessels: [{ mmsi_list: [MMSI] }] });
    expect(dwellAlerts(every(MINUTE, T0, T0 + 60 * MINUTE, IN), zones)).toEqual([]);
  });

  it('fires in a zone whose own dwell alerts are disabled', () => {
    const zones = zoneWith(tenMinutesHigh, { dwell: { enabled: false } });
    expect(timeline(dwellAlerts(every(MINUTE, T0, T0 + 60 * MINUTE, IN), zones))).toEqual([`dwell_threshold@${iso(T0 + 10 * MINUTE)}`]);
  });
});
