import { describe, expect, it } from 'vitest';
import { combine, decide, firstSeen, overall, transitionSeverity, type AgreedHealth, type InstanceReport } from '../../../../platform/health/model.ts';

const T0 = Date.parse('2026-11-26T06:00:00Z');
const at = (s: number) => new Date(T0 + s * 1000);
const report = (instance_id: string, status: InstanceReport['status'], since = 0, reason = ''): InstanceReport => ({ instance_id, component: 'kafka', status, since: at(since), reason });

describe('combine: one component across instances', () => {
  it('is down only when every reporting instance says down, degraded when some do', () => {
    expect(combine([report('a', 'down', 1, 'refused'), report('b', 'down', 2, 'refused')])).toMatchObject({ status: 'down', reason: 'refused (2 of 2 instances)', since: at(2) });
    expect(combine([report('a', 'down', 1, 'refused'), report('b', 'ok')]).status).toBe('degraded');
    expect(combine([report('a', 'degraded', 1, 'slow'), report('b', 'ok')]).status).toBe('degraded');
    expect(combine([report('a', 'ok', 3), report('b', 'ok', 5)])).toMatchObject({ status: 'ok', reason: '', since: at(5) });
  });

  it('counts a feed heard by any instance as ok (another instance\'s silence is only its own)', () => {
    const feed = (instance_id: string, status: InstanceReport['status']): InstanceReport => ({ ...report(instance_id, status, 0, 'no report for 90 s'), component: 'ais_source:north' });
    const view = combine([feed('a', 'down'), feed('b', 'ok')]);
    expect(view.status).toBe('ok');
    expect(view.instances.map((i) => i.status)).toEqual(['down', 'ok']);
    expect(combine([feed('a', 'down'), feed('b', 'down')]).status).toBe('down');
  });

  it('lists each instance\'s view', () => {
    expect(combine([report('b', 'ok'), report('a', 'down', 0, 'x')]).instances.map((i) => [i.instance_id, i.status])).toEqual([['a', 'down'], ['b', 'ok']]);
  });
});

describe('decide: debounce against flapping', () => {
  const okState: AgreedHealth = { status: 'ok', since: at(0), seq: 3, pending_status: null, pending_since: null };

  it('waits for a new status to hold for the debounce, then makes one transition', () => {
    const first = decide(okState, 'down', at(10), 30_000);
    expect(first).toEqual({ kind: 'pending', status: 'down', since: at(10) });
    const pending = { ...okState, pending_status: 'down' as const, pending_since: at(10) };
    expect(decide(pending, 'down', at(39), 30_000)).toEqual({ kind: 'none' });
    expect(decide(pending, 'down', at(40), 30_000)).toEqual({ kind: 'transition', from: 'ok', to: 'down', seq: 4 });
  });

  it('says nothing of a status that flaps back before the debounce', () => {
    const pending = { ...okState, pending_status: 'down' as const, pending_since: at(10) };
    expect(decide(pending, 'ok', at(20), 30_000)).toEqual({ kind: 'clear' });
    expect(decide(okState, 'ok', at(20), 30_000)).toEqual({ kind: 'none' });
  });

  it('restarts the wait when the pending status changes (degraded, then down)', () => {
    const pending = { ...okState, pending_status: 'degraded' as const, pending_since: at(10) };
    expect(decide(pending, 'down', at(45), 30_000)).toEqual({ kind: 'pending', status: 'down', since: at(45) });
  });

  it('counts a component first seen as ok so far: one that starts down is a transition after the debounce', () => {
    expect(decide(firstSeen(at(0)), 'down', at(0), 0)).toEqual({ kind: 'pending', status: 'down', since: at(0) });
    expect(decide(firstSeen(at(0)), 'ok', at(0), 0)).toEqual({ kind: 'none' });
  });
});

describe('severities', () => {
  it('are low back to ok, medium degraded, high down, critical for Kafka and Postgres down', () => {
    expect(transitionSeverity('kafka', 'down')).toBe('critical');
    expect(transitionSeverity('postgres', 'down')).toBe('critical');
    expect(transitionSeverity('ais_source', 'down')).toBe('high');
    expect(transitionSeverity('kafka', 'degraded')).toBe('medium');
    expect(transitionSeverity('consumer_group', 'ok')).toBe('low');
    expect(overall([{ status: 'ok' }, { status: 'degraded' }])).toBe('degraded');
    expect(overall([])).toBe('ok');
  });
});
