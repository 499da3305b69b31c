import { describe, expect, it } from 'vitest';
import type { RuleZone } from '../../../../../processors/maritime/rules/config.ts';
import { every, iso, makeZone, MINUTE, run, SECOND, T0, timeline, zoneMap, type Report } from './zone-fixtures.ts';

const IN = { in: ['z1'] };
const zoneOf = (overrides: Partial<RuleZone>): Map<string, RuleZone> => zoneMap(makeZone({ id: 'z1', ...overrides }));
const dwellEvents = (reports: Report[], zones: Map<string, RuleZone>): string[] =>
  timeline(run(reports, zones).intents.filter((intent) => intent.type.startsWith('dwell_')));

describe('dwell thresholds', () => {
  it('fires dwell_threshold once, at the first report at or past the restricted limit of 15 minutes', () => {
    const { intents } = run(every(30 * SECOND, T0, T0 + 20 * MINUTE, IN), zoneOf({ type: 'restricted' }));
    const alerts = intents.filter((intent) => intent.type === 'dwell_threshold');
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({
      severity: 'medium',
      timestamp: iso(T0 + 15 * MINUTE),
      requires_action: true,
      title: 'NORDIC STAR (MMSI 219000001) exceeded the 15 min dwell limit in restricted zone North Basin',
      metadata: { dwell_minutes: 15, threshold_minutes: 15, crossed_at: iso(T0 + 15 * MINUTE), alert_status: 'active', visit_started_at: iso(T0) },
    });
  });

  it('timestamps the alert at the report and keeps the exact crossing instant in metadata', () => {
    const alert = run(every(40 * SECOND, T0, T0 + 20 * MINUTE, IN), zoneOf({ type: 'restricted' })).intents.find((intent) => intent.type === 'dwell_threshold');
    expect(alert?.timestamp).toBe(iso(T0 + 15 * MINUTE + 20 * SECOND));
    expect(alert?.metadata.crossed_at).toBe(iso(T0 + 15 * MINUTE));
  });

  it('uses 60 minutes for a monitoring zone', () => {
    expect(dwellEvents(every(MINUTE, T0, T0 + 61 * MINUTE, IN), zoneOf({ type: 'monitoring' }))[0]).toBe(`dwell_threshold@${iso(T0 + 60 * MINUTE)}`);
  });

  it('uses 1440 minutes for an anchorage', () => {
    const events = dwellEvents(every(3 * MINUTE, T0, T0 + 1500 * MINUTE, IN), zoneOf({ type: 'anchorage', dwell: { escalation: [] } }));
    expect(events).toEqual([`dwell_threshold@${iso(T0 + 1440 * MINUTE)}`]);
  });

  it('alerts an exclusion zone on entry, beside the zone_entry', () => {
    const { intents } = run([{ at: T0, ...IN }], zoneOf({ type: 'exclusion', alert_level: 'critical' }));
    expect(timeline(intents)).toEqual([`zone_entry@${iso(T0)}`, `dwell_threshold@${iso(T0)}`]);
    expect(intents[0]?.severity).toBe('critical');
    expect(intents[1]?.metadata).toMatchObject({ threshold_minutes: 0, dwell_minutes: 0 });
    expect(intents[1]?.title).toBe('NORDIC STAR (MMSI 219000001) in exclusion zone North Basin, where no dwell is allowed');
  });

  it('follows a per-zone threshold override', () => {
    expect(dwellEvents(every(MINUTE, T0, T0 + 6 * MINUTE, IN), zoneOf({ type: 'restricted', dwell: { threshold_minutes: 5 } }))).toEqual([
      `dwell_threshold@${iso(T0 + 5 * MINUTE)}`,
    ]);
  });

  it('raises no dwell alert in a zone whose dwell is disabled', () => {
    expect(dwellEvents(every(MINUTE, T0, T0 + 120 * MINUTE, IN), zoneOf({ type: 'restricted', dwell: { enabled: false } }))).toEqual([]);
  });
});

describe('escalation ladder', () => {
  it('escalates 15, 30 and 60 minutes past the threshold, each exactly once', () => {
    const { intents } = run(every(30 * SECOND, T0, T0 + 120 * MINUTE, IN), zoneOf({ type: 'restricted' }));
    const dwell = intents.filter((intent) => intent.type.startsWith('dwell_'));
    expect(dwell.map((intent) => [intent.type, intent.timestamp, intent.metadata.action ?? null, intent.severity])).toEqual([
      ['dwell_threshold', iso(T0 + 15 * MINUTE), null, 'medium'],
      ['dwell_escalation', iso(T0 + 30 * MINUTE), 'notify_supervisor', 'high'],
      ['dwell_escalation', iso(T0 + 45 * MINUTE), 'escalate_to_port_authority', 'high'],
      ['dwell_escalation', iso(T0 + 75 * MINUTE), 'escalate_to_coast_guard', 'critical'],
    ]);
    expect(dwell[3]?.metadata).toMatchObject({ after_minutes: 60, alert_status: 'escalated', dwell_minutes: 75 });
  });

  it('starts the ladder at entry for an exclusion zone', () => {
    expect(dwellEvents(every(MINUTE, T0, T0 + 61 * MINUTE, IN), zoneOf({ type: 'exclusion' }))).toEqual([
      `dwell_threshold@${iso(T0)}`,
      `dwell_escalation@${iso(T0 + 15 * MINUTE)}`,
      `dwell_escalation@${iso(T0 + 30 * MINUTE)}`,
      `dwell_escalation@${iso(T0 + 60 * MINUTE)}`,
    ]);
  });

  it('fires every rung that fell due during a gap in reports, in order, with each crossing instant', () => {
    const zones = zoneOf({ type: 'restricted', dwell: { escalation: [{ after_minutes: 5, action: 'notify_supervisor' }, { after_minutes: 10, action: 'escalate_to_port_authority' }] } });
    const { intents } = run([{ at: T0, ...IN }, { at: T0 + 26 * MINUTE, ...IN }], zones);
    const dwell = intents.filter((intent) => intent.type.startsWith('dwell_'));
    expect(dwell.map((intent) => [intent.timestamp, intent.metadata.crossed_at])).toEqual([
      [iso(T0 + 26 * MINUTE), iso(T0 + 15 * MINUTE)],
      [iso(T0 + 26 * MINUTE), iso(T0 + 20 * MINUTE)],
      [iso(T0 + 26 * MINUTE), iso(T0 + 25 * MINUTE)],
    ]);
  });
});

describe('re-entry and the reset window', () => {
  const restricted = zoneOf({ type: 'restricted' });
  // Inside for 10 minutes, then outside (exit confirmed at the first report outside, T0 + 10 min).
  const firstStay = [...every(30 * SECOND, T0, T0 + 10 * MINUTE, IN), ...every(30 * SECOND, T0 + 10 * MINUTE, T0 + 12 * MINUTE)];

  it('carries the earlier dwell over on re-entry within 30 minutes', () => {
    const reports = [...firstStay, ...every(30 * SECOND, T0 + 30 * MINUTE, T0 + 40 * MINUTE, IN)];
    const { intents } = run(reports, restricted);
    expect(timeline(intents)).toEqual([
      `zone_entry@${iso(T0)}`,
      `zone_exit@${iso(T0 + 10 * MINUTE)}`,
      `zone_entry@${iso(T0 + 30 * MINUTE)}`,
      `dwell_threshold@${iso(T0 + 35 * MINUTE)}`,
    ]);
    expect(intents[2]?.metadata).toMatchObject({ carried_over_minutes: 10, dwell_minutes: 10, visit_started_at: iso(T0) });
    expect(intents[3]?.metadata).toMatchObject({ dwell_minutes: 15, crossed_at: iso(T0 + 35 * MINUTE) });
  });

  it('carries over at exactly the end of the reset window', () => {
    const reports = [...firstStay, ...every(MINUTE, T0 + 40 * MINUTE, T0 + 46 * MINUTE, IN)];
    expect(dwellEvents(reports, restricted)).toEqual([`dwell_threshold@${iso(T0 + 45 * MINUTE)}`]);
  });

  it('starts a fresh dwell on re-entry after the reset window', () => {
    const reports = [...firstStay, ...every(MINUTE, T0 + 41 * MINUTE, T0 + 60 * MINUTE, IN)];
    const { intents } = run(reports, restricted);
    expect(intents[2]?.metadata).toMatchObject({ visit_started_at: iso(T0 + 41 * MINUTE), dwell_minutes: 0 });
    expect(intents[2]?.metadata.carried_over_minutes).toBeUndefined();
    expect(dwellEvents(reports, restricted)).toEqual([`dwell_threshold@${iso(T0 + 56 * MINUTE)}`]);
  });

  it('does not repeat a rung already fired in the visit, and continues the ladder', () => {
    const reports = [
      ...every(MINUTE, T0, T0 + 20 * MINUTE, IN),
      ...every(MINUTE, T0 + 20 * MINUTE, T0 + 23 * MINUTE),
      ...every(MINUTE, T0 + 30 * MINUTE, T0 + 41 * MINUTE, IN),
    ];
    expect(dwellEvents(reports, restricted)).toEqual([`dwell_threshold@${iso(T0 + 15 * MINUTE)}`, `dwell_escalation@${iso(T0 + 40 * MINUTE)}`]);
  });

  it('re-enters without a new zone_entry when the exit was never confirmed', () => {
    const reports = [...every(MINUTE, T0, T0 + 10 * MINUTE, IN), { at: T0 + 10 * MINUTE }, ...every(MINUTE, T0 + 11 * MINUTE, T0 + 16 * MINUTE, IN)];
    expect(timeline(run(reports, restricted).intents)).toEqual([`zone_entry@${iso(T0)}`, `dwell_threshold@${iso(T0 + 15 * MINUTE)}`]);
  });

  it('uses the zone reset window override', () => {
    const short = zoneOf({ type: 'restricted', dwell: { reset_window_minutes: 5 } });
    const reports = [...firstStay, ...every(MINUTE, T0 + 30 * MINUTE, T0 + 46 * MINUTE, IN)];
    expect(dwellEvents(reports, short)).toEqual([`dwell_threshold@${iso(T0 + 45 * MINUTE)}`]);
  });
});
