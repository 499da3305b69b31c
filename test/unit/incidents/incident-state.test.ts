import { describe, expect, it } from 'vitest';
import { groupingOf } from '../../../incidents/grouping.ts';
import * as s from '../../../incidents/incident-state.ts';
import type { EventSeverity, SecurityEvent } from '../../../schemas/event.ts';
import type { Incident } from '../../../schemas/incident.ts';

const T0 = Date.parse('2026-11-21T07:00:00Z');
const MIN = 60_000;
const at = (minutes: number) => new Date(T0 + minutes * MIN);
const iso = (minutes: number) => at(minutes).toISOString();
const WINDOWS: s.IncidentWindows = { groupWindowMinutes: 60, reopenWindowMinutes: 30 };
const TIMEOUTS: s.AckTimeouts = { low: null, medium: 30, high: 10, critical: 5 };

let n = 0;
const event = (minutes: number, severity: EventSeverity = 'high', metadata: Record<string, unknown> = { mmsi: 219592000 }): SecurityEvent => ({
  id: `evt_${String(++n).padStart(32, '0')}`,
  type: 'zone_entry',
  timestamp: iso(minutes),
  category: 'maritime',
  severity,
  source_module: 'maritime.zones',
  source_device: '',
  title: `entry ${n}`,
  description: '',
  location: { zone: 'Holmen' },
  metadata,
  requires_action: true,
  assigned_to: '',
  incident_id: null,
});
const open = (e = event(0), now = at(0)) => s.openIncident(groupingOf(e), e, TIMEOUTS, now);
const subject = (e: SecurityEvent) => groupingOf(e).subject;

describe('incidentId', () => {
  it('comes from the key and the opening event alone', () => {
    expect(s.incidentId('vessel:1', 'evt_a')).toMatch(/^inc_[0-9a-f]{32}$/);
    expect(s.incidentId('vessel:1', 'evt_a')).toBe(s.incidentId('vessel:1', 'evt_a'));
    expect(s.incidentId('vessel:1', 'evt_b')).not.toBe(s.incidentId('vessel:1', 'evt_a'));
    expect(s.incidentId('vessel:2', 'evt_a')).not.toBe(s.incidentId('vessel:1', 'evt_a'));
    const e = event(0);
    expect(open(e, at(0)).id).toBe(open(e, at(99)).id);
  });
});

describe('placement: join within the group window, reopen within the reopen window, else new', () => {
  const unresolved = { ...open(event(0)), first_event_at: iso(0), last_event_at: iso(20) };
  const resolved: Incident = { ...unresolved, status: 'resolved', resolved_at: iso(30) };
  const rows: [string, Incident | undefined, number, s.Placement][] = [
    ['no incident of the key', undefined, 0, 'new'],
    ['an event between its first and last', unresolved, 10, 'join'],
    ['the group window after its last event', unresolved, 80, 'join'],
    ['just past the group window', unresolved, 80.01, 'new'],
    ['a late event the group window before its first', unresolved, -60, 'join'],
    ['a late event older than that', unresolved, -61, 'new'],
    ['an acknowledged one in the window', { ...unresolved, status: 'acknowledged' }, 30, 'join'],
    ['a resolved one, at its resolution', resolved, 30, 'reopen'],
    ['a resolved one, the reopen window after it (flapping exit and re-entry)', resolved, 60, 'reopen'],
    ['a resolved one, past the reopen window', resolved, 60.01, 'new'],
    ['a resolved one, a late event from before its resolution', resolved, 25, 'reopen'],
  ];
  it.each(rows)('%s', (_name, candidate, minutes, expected) => {
    expect(s.placement(candidate, iso(minutes), WINDOWS)).toBe(expected);
  });
});

describe('the state machine', () => {
  it('opens with the event: open, its severity, its ack timeout scheduled, revision 1', () => {
    const e = event(0, 'high');
    expect(open(e, at(1))).toMatchObject({
      status: 'open', severity: 'high', key: 'vessel:219592000', reason: 'vessel MMSI 219592000 (metadata.mmsi)', opening_event_id: e.id, event_count: 1,
      first_event_at: iso(0), last_event_at: iso(0), opened_at: iso(1), escalation_step: 0, next_escalation_at: iso(11), revision: 1, mmsi: 219592000, zone: 'Holmen',
    });
    expect(open(event(0, 'low')).next_escalation_at).toBeNull();
  });

  const rows: [string, EventSeverity, number, EventSeverity, EventSeverity, string | null][] = [
    // opening severity (at 0), minute and severity of the joining event -> incident severity, next escalation
    ['a lower event keeps the severity and the deadline', 'high', 2, 'medium', 'high', iso(10)],
    ['a higher event raises it and brings the deadline forward', 'medium', 2, 'high', 'high', iso(12)],
    ['a higher event whose own deadline is later keeps the earlier one', 'high', 8, 'critical', 'critical', iso(10)],
    ['a first escalating severity schedules the first deadline', 'low', 2, 'medium', 'medium', iso(32)],
  ];
  it.each(rows)('severity is the highest of its events: %s', (_name, first, minute, second, severity, next) => {
    const incident = open(event(0, first), at(0));
    const e = event(minute, second);
    expect(s.joinEvent(incident, e, subject(e), TIMEOUTS, at(minute))).toMatchObject({ severity, next_escalation_at: next, event_count: 2, last_event_at: iso(minute), revision: 2 });
  });

  it('keeps the first value of each subject field and fills the empty ones', () => {
    const incident = open(event(0));
    const gate = event(5, 'high', { container_id: 'MSCU1234565', gate: 'G1', mmsi: 1 });
    expect(s.joinEvent(incident, gate, subject(gate), TIMEOUTS, at(5))).toMatchObject({ mmsi: 219592000, container_id: 'MSCU1234565', gate_id: 'G1', zone: 'Holmen' });
  });

  it('acknowledges an open incident (the escalation stops), once', () => {
    const acked = s.acknowledge(open(), 'duty.officer', at(3));
    expect(acked).toMatchObject({ status: 'acknowledged', acknowledged_by: 'duty.officer', acknowledged_at: iso(3), next_escalation_at: null, revision: 2 });
    expect(s.acknowledge(acked, 'someone.else', at(4))).toBe(acked);
  });

  it('resolves from open or acknowledged, once; a resolved one cannot be acknowledged', () => {
    const direct = s.resolve(open(), 'op', 'false alarm', at(4));
    expect(direct).toMatchObject({ status: 'resolved', resolved_by: 'op', resolution_reason: 'false alarm', resolved_at: iso(4), next_escalation_at: null });
    expect(s.resolve(s.acknowledge(open(), 'op', at(1)), 'op', 'escorted out', at(4)).status).toBe('resolved');
    expect(s.resolve(direct, 'op2', 'again', at(5))).toBe(direct);
    expect(() => s.acknowledge(direct, 'op', at(5))).toThrow(/is resolved/);
  });

  it('assigns and notes in any state, counting a revision each; assigning the same operator again changes nothing', () => {
    const assigned = s.assign(open(), 'op-7', at(1));
    expect(assigned).toMatchObject({ assigned_to: 'op-7', revision: 2 });
    expect(s.assign(assigned, 'op-7', at(2))).toBe(assigned);
    const noted = s.addNote(s.resolve(assigned, 'op', 'done', at(2)), 'op', 'post-mortem: radar confirmed', at(3));
    expect(noted.notes).toEqual([{ at: iso(3), by: 'op', text: 'post-mortem: radar confirmed' }]);
    expect(noted.revision).toBe(4);
  });

  it('reopens a resolved incident: open again, unacknowledged, escalation from the first step', () => {
    const e = event(0);
    const resolved = s.resolve(s.acknowledge({ ...open(e), escalation_step: 2 }, 'op', at(1)), 'op', 'left', at(10));
    const again = event(20, 'medium');
    const reopened = s.reopenIncident(resolved, again, subject(again), TIMEOUTS, at(20));
    expect(reopened).toMatchObject({
      id: resolved.id, status: 'open', acknowledged_at: null, acknowledged_by: null, resolved_at: null, resolved_by: null, resolution_reason: null,
      escalation_step: 0, next_escalation_at: iso(30), reopen_count: 1, event_count: 2, severity: 'high',
    });
  });
});

describe('escalate: the acknowledgement timeout', () => {
  const steps = 3;
  it('is not due before next_escalation_at, nor for an acknowledged or resolved incident', () => {
    const incident = open(event(0, 'high'), at(0));
    expect(s.escalate(incident, TIMEOUTS, steps, at(9.99))).toBeUndefined();
    expect(s.escalate(s.acknowledge(incident, 'op', at(1)), TIMEOUTS, steps, at(60))).toBeUndefined();
    expect(s.escalate(s.resolve(incident, 'op', 'r', at(1)), TIMEOUTS, steps, at(60))).toBeUndefined();
  });

  it('moves one step up per timeout until the escalation order has no party left, then stops', () => {
    let incident = open(event(0, 'high'), at(0));
    const seen: [number, string | null][] = [];
    for (const minute of [10, 20, 30]) {
      const step = s.escalate(incident, TIMEOUTS, steps, at(minute));
      expect(step?.escalated).toBe(true);
      incident = step!.incident;
      seen.push([incident.escalation_step, incident.next_escalation_at]);
    }
    expect(seen).toEqual([[1, iso(20)], [2, iso(30)], [3, null]]);
    expect(s.escalate(incident, TIMEOUTS, steps, at(999))).toBeUndefined();
  });

  it('clears the deadline without escalating when the order has no party at all', () => {
    const step = s.escalate(open(event(0, 'critical'), at(0)), TIMEOUTS, 0, at(5));
    expect(step).toMatchObject({ escalated: false, incident: { escalation_step: 0, next_escalation_at: null } });
  });
});

describe('isInhibited: an unresolved critical incident mutes lower notifications', () => {
  const rows: [Incident['status'], EventSeverity, EventSeverity, boolean][] = [
    ['open', 'critical', 'high', true],
    ['open', 'critical', 'low', true],
    ['acknowledged', 'critical', 'medium', true],
    ['open', 'critical', 'critical', false],
    ['resolved', 'critical', 'high', false],
    ['open', 'high', 'medium', false],
  ];
  it.each(rows)('%s %s incident, %s event -> %s', (status, severity, eventSeverity, inhibited) => {
    expect(s.isInhibited({ status, severity }, eventSeverity)).toBe(inhibited);
  });
});

describe('mergeInto', () => {
  const a = s.joinEvent(open(event(0, 'critical', { container_id: 'MSCU1234565' })), event(30, 'low'), subject(event(30)), TIMEOUTS, at(30));
  const b = open(event(10, 'medium'), at(10));

  it('moves the events to the target and resolves the source, pointing at it', () => {
    const { source, target } = s.mergeInto(a, b, 'op', at(40));
    expect(target).toMatchObject({ id: b.id, severity: 'critical', event_count: 3, first_event_at: iso(0), last_event_at: iso(30), container_id: 'MSCU1234565', revision: 2, status: 'open' });
    expect(source).toMatchObject({ id: a.id, status: 'resolved', merged_into: b.id, resolution_reason: `merged into ${b.id}`, resolved_by: 'op', event_count: 0, next_escalation_at: null });
  });

  it('refuses itself, a merged source, a merged or resolved target', () => {
    expect(() => s.mergeInto(a, a, 'op', at(40))).toThrow(/itself/);
    const { source } = s.mergeInto(a, b, 'op', at(40));
    expect(() => s.mergeInto(source, b, 'op', at(41))).toThrow(/was merged into/);
    expect(() => s.mergeInto(b, source, 'op', at(41))).toThrow(/was merged into/);
    expect(() => s.mergeInto(a, s.resolve(b, 'op', 'r', at(41)), 'op', at(42))).toThrow(/is resolved/);
    expect(() => s.acknowledge(source, 'op', at(42))).toThrow(/was merged into/);
  });
});

describe('changedFields', () => {
  it('holds the fields a change changed, before and after, and nothing else', () => {
    const before = open();
    expect(s.changedFields(before, s.acknowledge(before, 'op', at(3)))).toEqual({
      before: { status: 'open', acknowledged_at: null, acknowledged_by: null, next_escalation_at: iso(10) },
      after: { status: 'acknowledged', acknowledged_at: iso(3), acknowledged_by: 'op', next_escalation_at: null },
    });
  });
});
