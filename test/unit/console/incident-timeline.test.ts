import { describe, expect, it } from 'vitest';
import { entryText, incidentTimeline, type TimelineAction } from '../../../console/src/incident-timeline.ts';

const at = (s: number) => new Date(Date.UTC(2026, 10, 28, 12, 2, s)).toISOString();
const action = (kind: string, target: string, s: number, extra: Partial<TimelineAction> = {}): TimelineAction => ({ id: `a-${kind}-${target}-${s}`, kind, target, status: 'done', created_at: at(s), done_at: at(s), ...extra });

describe('an incident\'s timeline', () => {
  const lock = action('lock_gate', 'G1', 11);
  const authority = action('escalate', 'port_authority', 12);
  const supervisor = action('escalate', 'supervisor', 12);
  const lines = (records: Parameters<typeof incidentTimeline>[0]) => incidentTimeline(records).map(entryText);

  it('says what was done to what and how it came out, oldest first, among the events and changes', () => {
    expect(lines({
      events: [
        { id: 'e1', timestamp: at(10), type: 'zone_entry', severity: 'critical', title: 'Vessel entered Tank quay' },
        // The response's own event for the lock is the lock's line already.
        { id: 'e2', timestamp: at(11), type: 'gate_locked', severity: 'high', title: 'Gate North gate locked', metadata: { action_id: lock.id } },
      ],
      actions: [lock, authority, supervisor],
      escalations: [
        { action_id: authority.id, party: 'port_authority', webhook_ids: ['w1', 'w2'], deliveries: { delivered: 2, pending: 0, failed: 0 } },
        { action_id: supervisor.id, party: 'supervisor', webhook_ids: [], deliveries: { delivered: 0, pending: 0, failed: 0 } },
      ],
      timeline: [
        { at: at(10), action: 'opened', by: 'incidents' },
        { at: at(10), action: 'event_attached', by: 'incidents' },
        { at: at(40), action: 'acknowledged', by: 'duty.officer' },
        { at: at(50), action: 'resolved', by: 'duty.officer', after: { resolution_reason: 'pilot confirmed' } },
      ],
    })).toEqual([
      'Vessel entered Tank quay',
      'incident opened',
      'gate G1 locked',
      'escalated to port authority: delivered 2/2',
      'escalated to supervisor: no receiver, nobody was told',
      'acknowledged by duty.officer',
      'resolved by duty.officer: pilot confirmed',
    ]);
  });

  it('collapses repeats into one line with a count, muted ones said so', () => {
    const repeats = Array.from({ length: 12 }, (_, i) => action('notify', 'dashboard', 20 + i, { id: `n${i}`, status: 'muted' }));
    const entries = incidentTimeline({ actions: [action('notify', 'dashboard', 15), ...repeats] });
    expect(entries.map(entryText)).toEqual(['notified the dashboard', 'notified the dashboard ×12 (muted repeats)']);
    expect(entries[1]).toMatchObject({ at: at(20), lastAt: at(31), count: 12 });
    expect(incidentTimeline({ actions: [repeats[0]!] }).map(entryText)).toEqual(['notified the dashboard (muted: recorded, not sent)']);
  });

  it('warns where an action failed or a delivery is missing', () => {
    const failing = action('lock_gate', 'G2', 5, { status: 'failed', last_error: 'Kafka did not acknowledge' });
    const partly = action('escalate', 'coast_guard', 6);
    const entries = incidentTimeline({
      actions: [failing, partly],
      escalations: [{ action_id: partly.id, party: 'coast_guard', webhook_ids: ['w1', 'w2', 'w3'], deliveries: { delivered: 1, pending: 1, failed: 1 } }],
    });
    expect(entries.map((e) => [entryText(e), e.warn])).toEqual([
      ['gate G2 lock failed, retrying: Kafka did not acknowledge', true],
      ['escalated to coast guard: delivered 1/3 (1 pending, 1 failed)', true],
    ]);
  });
});
