import { describe, expect, it } from 'vitest';
import { actionId, noticesOf, planActions, type MatchedRule, type PlannedAction, type SentNotice } from '../../../response/planner.ts';
import type { SecurityEvent } from '../../../schemas/event.ts';
import { DEFAULT_SYSTEM_CONFIG } from '../../../schemas/system-config.ts';

function event(severity: SecurityEvent['severity'], over: Partial<SecurityEvent> = {}): SecurityEvent {
  return {
    id: 'evt_1', type: 'perimeter_breach', timestamp: '2026-11-26T03:00:00.000Z', category: 'perimeter', severity,
    source_module: 'perimeter', source_device: 'fence-7', title: 'Breach', description: 'Breach at fence 7',
    location: { lat: 55.7, lng: 12.6 }, metadata: {}, requires_action: false, assigned_to: '', incident_id: null, ...over,
  } as SecurityEvent;
}

const brief = (actions: PlannedAction[]) => actions.map((a) => `${a.kind}:${a.target}${a.muted ? ' (muted)' : ''}`).sort();

describe('planActions: the spec alert-level table as defaults', () => {
  // Level -> what the default configuration does (notification channels, escalation, drone).
  const rows: [SecurityEvent['severity'] | 'info', string[]][] = [
    ['info', []],
    ['low', ['notify:dashboard']],
    ['medium', ['notify:push']],
    ['high', ['dispatch_drone:inspect', 'escalate:supervisor', 'notify:audio_alarm', 'notify:push']],
    ['critical', ['dispatch_drone:inspect', 'escalate:coast_guard', 'escalate:port_authority', 'escalate:supervisor', 'notify:audio_alarm', 'notify:dashboard', 'notify:push']],
  ];
  for (const [level, expected] of rows) {
    it(`${level}: ${expected.join(', ') || 'logged only'}`, () => {
      const rule: MatchedRule | undefined = level === 'info' ? { zone: 'Z', trigger: 'on_entry', alert_level: 'info', actions: [] } : undefined;
      const actions = planActions({ event: event(level === 'info' ? 'low' : level), rule, config: DEFAULT_SYSTEM_CONFIG, incident: undefined });
      expect(brief(actions)).toEqual(expected);
    });
  }

  it('medium offers a drone (optional) without flying one; high flies automatic, critical immediate', () => {
    const plan = (s: SecurityEvent['severity']) => planActions({ event: event(s), rule: undefined, config: DEFAULT_SYSTEM_CONFIG, incident: undefined }).filter((a) => a.kind === 'dispatch_drone');
    expect(plan('medium')).toEqual([]);
    expect(plan('high').map((a) => a.params.priority)).toEqual(['automatic']);
    expect(plan('critical').map((a) => a.params.priority)).toEqual(['immediate']);
  });
});

describe('planActions: explicit actions with the defaults', () => {
  const rule: MatchedRule = {
    zone: 'Holmen naval base', trigger: 'on_entry', alert_level: 'high',
    actions: [
      { action: 'notify_operator', assign_to: 'op-7' },
      { action: 'escalate_to', parties: ['supervisor', 'port_authority'] },
      { action: 'lock_gates', gates: ['G1', 'G2'] },
      { action: 'dispatch_drone', mission: 'track' },
      { action: 'log_event' },
    ],
  };

  it('adds to the level floor, one action per kind and target, the rule parameters kept', () => {
    const actions = planActions({ event: event('medium', { type: 'zone_entry' }), rule, config: DEFAULT_SYSTEM_CONFIG, incident: undefined });
    expect(brief(actions)).toEqual(['dispatch_drone:track', 'escalate:port_authority', 'escalate:supervisor', 'lock_gate:G1', 'lock_gate:G2', 'notify:audio_alarm', 'notify:dashboard', 'notify:push']);
    const dashboard = actions.find((a) => a.target === 'dashboard');
    expect(dashboard).toMatchObject({ source: 'rule', reason: 'zone:Holmen naval base:on_entry', params: { assign_to: 'op-7' }, level: 'high' });
    expect(actions.find((a) => a.target === 'push')).toMatchObject({ source: 'level', reason: 'level:high' });
    // The rule's mission replaces the level's default one instead of flying two drones.
    expect(actions.filter((a) => a.kind === 'dispatch_drone')).toHaveLength(1);
  });

  it('the rule level replaces the event severity: an info rule logs only', () => {
    const info: MatchedRule = { zone: 'Z', trigger: 'on_exit', alert_level: 'info', actions: [{ action: 'log_event' }] };
    expect(planActions({ event: event('critical'), rule: info, config: DEFAULT_SYSTEM_CONFIG, incident: undefined })).toEqual([]);
  });

  it('close_incident resolves the incident the event joined, and only an unresolved one', () => {
    const close: MatchedRule = { zone: 'Z', trigger: 'on_exit', alert_level: 'low', actions: [{ action: 'close_incident' }] };
    const open = planActions({ event: event('low'), rule: close, config: DEFAULT_SYSTEM_CONFIG, incident: { id: 'inc_9', status: 'acknowledged', inhibitsNotifications: false } });
    expect(brief(open)).toEqual(['close_incident:inc_9', 'notify:dashboard']);
    expect(open.every((a) => a.incident_id === 'inc_9')).toBe(true);
    const resolved = planActions({ event: event('low'), rule: close, config: DEFAULT_SYSTEM_CONFIG, incident: { id: 'inc_9', status: 'resolved', inhibitsNotifications: false } });
    expect(brief(resolved)).toEqual(['notify:dashboard']);
  });

  it('the dwell ladder escalates to its party through the same action', () => {
    const ladder = event('high', { type: 'dwell_escalation', metadata: { action: 'escalate_to_port_authority', after_minutes: 30 } });
    const actions = planActions({ event: ladder, rule: undefined, config: DEFAULT_SYSTEM_CONFIG, incident: undefined });
    expect(actions.find((a) => a.target === 'port_authority')).toMatchObject({ kind: 'escalate', source: 'ladder', reason: 'ladder:escalate_to_port_authority' });
    expect(actions.find((a) => a.target === 'supervisor')).toMatchObject({ kind: 'escalate', source: 'level' });
  });
});

describe('planActions: inhibition and identity', () => {
  it('an open critical incident mutes notifications and escalations below critical, not gate locks or drones', () => {
    const rule: MatchedRule = { zone: 'Z', trigger: 'on_entry', alert_level: 'high', actions: [{ action: 'lock_gates', gates: ['G1'] }] };
    const actions = planActions({ event: event('high'), rule, config: DEFAULT_SYSTEM_CONFIG, incident: { id: 'inc_1', status: 'open', inhibitsNotifications: true } });
    expect(brief(actions)).toEqual(['dispatch_drone:inspect', 'escalate:supervisor (muted)', 'lock_gate:G1', 'notify:audio_alarm (muted)', 'notify:push (muted)']);
    const critical = planActions({ event: event('critical'), rule: undefined, config: DEFAULT_SYSTEM_CONFIG, incident: { id: 'inc_1', status: 'open', inhibitsNotifications: true } });
    expect(critical.some((a) => a.muted)).toBe(false);
  });

  it('the same event plans the same ids, whatever the order of the rule actions; another event other ids', () => {
    const rule: MatchedRule = { zone: 'Z', trigger: 'on_entry', alert_level: 'critical', actions: [{ action: 'lock_gates', gates: ['G1', 'G2'] }, { action: 'escalate_to', parties: ['coast_guard'] }] };
    const reversed: MatchedRule = { ...rule, actions: [...rule.actions].reverse() };
    const ids = (r: MatchedRule, id = 'evt_1') => planActions({ event: event('critical', { id }), rule: r, config: DEFAULT_SYSTEM_CONFIG, incident: undefined }).map((a) => a.id).sort();
    expect(ids(rule)).toEqual(ids(reversed));
    expect(ids(rule)).toContain(actionId('evt_1', 'lock_gate', 'G2'));
    expect(new Set([...ids(rule), ...ids(rule, 'evt_2')]).size).toBe(2 * ids(rule).length);
  });
});

describe('planActions: a repeat of a notice the incident sent is muted, not sent again', () => {
  const incident = (noticesSent: ReadonlyMap<string, SentNotice>) => ({ id: 'inc_1', status: 'open' as const, inhibitsNotifications: false, noticesSent });
  const sent = noticesOf(planActions({ event: event('high', { id: 'evt_first' }), rule: undefined, config: DEFAULT_SYSTEM_CONFIG, incident: undefined }));

  it('at the same level: push, audio alarm and escalation muted as duplicates of the first; the drone and the dashboard flag are per event', () => {
    const actions = planActions({ event: event('high', { id: 'evt_again' }), rule: undefined, config: DEFAULT_SYSTEM_CONFIG, incident: incident(sent) });
    expect(brief(actions)).toEqual(['dispatch_drone:inspect', 'escalate:supervisor (muted)', 'notify:audio_alarm (muted)', 'notify:push (muted)']);
    expect(actions.find((a) => a.target === 'push')?.params.duplicate_of).toBe(actionId('evt_first', 'notify', 'push'));
    const dashboard = planActions({ event: event('low', { id: 'evt_low' }), rule: undefined, config: DEFAULT_SYSTEM_CONFIG, incident: incident(sent) });
    expect(brief(dashboard)).toEqual(['notify:dashboard']);
  });

  it('at a higher level: sent again (the incident got worse), and its new notices sent', () => {
    const actions = planActions({ event: event('critical', { id: 'evt_worse' }), rule: undefined, config: DEFAULT_SYSTEM_CONFIG, incident: incident(sent) });
    expect(actions.filter((a) => a.muted)).toEqual([]);
  });

  it('noticesOf keeps the highest level of each notice and ignores muted ones and the dashboard', () => {
    const worse = planActions({ event: event('critical', { id: 'evt_worse' }), rule: undefined, config: DEFAULT_SYSTEM_CONFIG, incident: undefined });
    const merged = noticesOf(worse, noticesOf(planActions({ event: event('high', { id: 'evt_first' }), rule: undefined, config: DEFAULT_SYSTEM_CONFIG, incident: undefined })));
    expect(merged.get('notify:push')).toEqual({ id: actionId('evt_worse', 'notify', 'push'), level: 'critical' });
    expect(merged.has('notify:dashboard')).toBe(false);
    const muted = planActions({ event: event('high', { id: 'evt_m' }), rule: undefined, config: DEFAULT_SYSTEM_CONFIG, incident: { id: 'inc_1', status: 'open', inhibitsNotifications: true } });
    expect(noticesOf(muted).has('notify:push')).toBe(false);
  });
});
