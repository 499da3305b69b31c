import { describe, expect, it } from 'vitest';
import { locksOf } from '../../../response/locks-first.ts';
import { planActions } from '../../../response/planner.ts';
import { lanesOf, matchedRule, respondsTo } from '../../../response/planning.ts';
import { DEFAULT_SYSTEM_CONFIG } from '../../../schemas/system-config.ts';
import type { SecurityEvent } from '../../../schemas/event.ts';

const event = (id: string, mmsi: number, minute: number, over: Partial<SecurityEvent> = {}): SecurityEvent => ({
  id, type: 'zone_entry', timestamp: new Date(Date.UTC(2026, 10, 26, 3, minute)).toISOString(), category: 'maritime', severity: 'high', source_module: 'maritime.zones',
  source_device: 'ais', title: 't', description: 'd', location: { lat: 55.7, lng: 12.6, zone: 'Z' }, metadata: { mmsi }, requires_action: true, assigned_to: '', incident_id: null, ...over,
}) as SecurityEvent;

describe('lanesOf: planning lanes by subject', () => {
  it('keeps every event, one subject in one lane in event-time order, at most the lanes asked for', () => {
    const batch = [event('e5', 1, 5), event('e1', 1, 1), event('e3', 2, 3), event('e2', 2, 2), event('e4', 3, 4), event('e0', 1, 0)];
    const lanes = lanesOf(batch, 4);
    expect(lanes.length).toBeLessThanOrEqual(4);
    expect(lanes.flat().map((e) => e.id).sort()).toEqual(batch.map((e) => e.id).sort());
    for (const mmsi of [1, 2, 3]) {
      const holding = lanes.filter((lane) => lane.some((e) => e.metadata.mmsi === mmsi));
      expect(holding).toHaveLength(1);
      const times = holding[0]!.filter((e) => e.metadata.mmsi === mmsi).map((e) => e.timestamp);
      expect(times).toEqual([...times].sort());
    }
  });

  it('one lane takes everything in time order', () => {
    expect(lanesOf([event('b', 2, 2), event('a', 1, 1)], 1).map((lane) => lane.map((e) => e.id))).toEqual([['a', 'b']]);
  });
});

describe('respondsTo: which records are new alerts', () => {
  const created = { headers: { change: 'created' } };
  it('answers new events, not updates, not the loop\'s own events, not test sends', () => {
    expect(respondsTo(created, event('a', 1, 0))).toBe(true);
    expect(respondsTo({ headers: { change: 'updated' } }, event('a', 1, 0))).toBe(false);
    expect(respondsTo(created, event('b', 1, 0, { type: 'incident_created', category: 'system' }))).toBe(false);
    expect(respondsTo(created, event('c', 1, 0, { type: 'gate_locked', category: 'gate', source_module: 'response' }))).toBe(false);
    expect(respondsTo(created, event('d', 1, 0, { metadata: { mmsi: 1, test: true } }))).toBe(false);
  });
});

describe('locksOf: the gate locks made ahead of the rest of the response', () => {
  const rules = new Map([['Z', { on_entry: { alert_level: 'critical' as const, actions: [{ action: 'notify_operator' as const }, { action: 'lock_gates' as const, gates: ['G1', 'G2'] }] } }]]);
  const snapshot = { config: DEFAULT_SYSTEM_CONFIG, alertRules: rules };

  it('only the lock_gate actions of events whose zone rule asks for them, with the ids the full plan gives them', () => {
    const entry = event('e1', 1, 1);
    const other = event('e2', 2, 2, { location: { lat: 55.7, lng: 12.6, zone: 'Elsewhere' } });
    const locks = locksOf([entry, other], snapshot);
    expect(locks.map((a) => `${a.event_id}:${a.kind}:${a.target}`)).toEqual(['e1:lock_gate:G1', 'e1:lock_gate:G2']);
    const full = planActions({ event: entry, rule: matchedRule(rules, entry), config: DEFAULT_SYSTEM_CONFIG, incident: { id: 'inc_1', status: 'open', inhibitsNotifications: true } });
    expect(full.filter((a) => a.kind === 'lock_gate').map((a) => a.id)).toEqual(locks.map((a) => a.id));
    expect(locks.every((a) => a.incident_id === null && !a.muted)).toBe(true);
  });

  it('an exit of the zone locks nothing (its trigger has no rule)', () => {
    expect(locksOf([event('e3', 1, 3, { type: 'zone_exit' })], snapshot)).toEqual([]);
  });
});
