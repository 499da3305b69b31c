import { describe, expect, it } from 'vitest';
import { DEFAULT_ZONE_RULES_CONFIG } from '../../../../../processors/maritime/rules/config.ts';
import type { VesselState } from '../../../../../processors/maritime/rules/vessel-state.ts';
import type { ZoneEventIntent } from '../../../../../processors/maritime/rules/zone-event-intents.ts';
import { step } from '../../../../../processors/maritime/rules/vessel-zone-state.ts';
import { every, makeZone, MINUTE, observation, run, SECOND, T0, zoneMap, type Report } from './zone-fixtures.ts';

const zones = zoneMap(
  makeZone({ id: 'z1', type: 'restricted', buffer: { enabled: true, distance_meters: 500 } }),
  makeZone({ id: 'z2', name: 'Anchorage B', type: 'anchorage' }),
  makeZone({ id: 'z3', name: 'Oil Pier', type: 'exclusion', alert_level: 'critical' }),
);

/** Approach, entry, hovering, a confirmed exit, re-entry within the reset window, the whole ladder. */
const voyage: Report[] = [
  ...every(20 * SECOND, T0, T0 + 5 * MINUTE, { near: ['z1'] }),
  ...every(20 * SECOND, T0 + 5 * MINUTE, T0 + 12 * MINUTE, { in: ['z1', 'z2'] }),
  ...every(20 * SECOND, T0 + 12 * MINUTE, T0 + 14 * MINUTE, { near: ['z1'], in: ['z2'] }),
  ...every(20 * SECOND, T0 + 20 * MINUTE, T0 + 100 * MINUTE, { in: ['z1', 'z2', 'z3'] }),
];

describe('state durability', () => {
  it('gives the same intents when the state is checkpointed to JSON and restored after every report', () => {
    const straight = run(voyage, zones);
    let state: VesselState | undefined;
    const restored: ZoneEventIntent[] = [];
    for (const report of voyage) {
      const result = step(state, observation(report), zones, DEFAULT_ZONE_RULES_CONFIG);
      restored.push(...result.intents);
      state = JSON.parse(JSON.stringify(result.state)) as VesselState;
    }
    expect(restored).toEqual(straight.intents);
    expect(state).toEqual(straight.state);
    expect(straight.intents.length).toBeGreaterThan(10);
  });

  it('reprocesses the reports after a crash into the same event keys, so no duplicate ids', () => {
    const checkpointAt = 40;
    const before = run(voyage.slice(0, checkpointAt), zones);
    const checkpoint = JSON.stringify(before.state);
    const firstRun = run(voyage.slice(checkpointAt), zones, DEFAULT_ZONE_RULES_CONFIG, before.state);
    const replay = run(voyage.slice(checkpointAt), zones, DEFAULT_ZONE_RULES_CONFIG, JSON.parse(checkpoint) as VesselState);
    expect(replay.intents.map((intent) => intent.key)).toEqual(firstRun.intents.map((intent) => intent.key));
    expect(replay.intents).toEqual(firstRun.intents);
  });

  it('gives every event of a voyage its own key', () => {
    const keys = run(voyage, zones).intents.map((intent) => intent.key);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('builds keys from the event type, zone, vessel and the instant that names the stay or visit', () => {
    const { intents } = run(voyage, zones);
    const key = (type: string, zone_id: string): string | undefined => intents.find((intent) => intent.type === type && intent.metadata.zone_id === zone_id)?.key;
    expect(key('zone_approach', 'z1')).toBe('zone_approach:z1:219000001:2024-06-03T10:00:00.000Z');
    expect(key('zone_entry', 'z1')).toBe('zone_entry:z1:219000001:2024-06-03T10:05:00.000Z');
    expect(key('zone_exit', 'z1')).toBe('zone_exit:z1:219000001:2024-06-03T10:05:00.000Z');
    expect(key('dwell_threshold', 'z1')).toBe('dwell_threshold:z1:219000001:2024-06-03T10:05:00.000Z');
    expect(key('dwell_escalation', 'z1')).toBe('dwell_escalation:z1:219000001:2024-06-03T10:05:00.000Z:15:notify_supervisor');
  });

  it('keeps the state small: one vessel in three zones checkpoints in under 1.5 kB', () => {
    const { state } = run(voyage, zones);
    expect(state?.zones).toHaveLength(3);
    expect(JSON.stringify(state).length).toBeLessThan(1500);
  });
});

describe('hot path', () => {
  it('returns the same state object and a shared empty intent list when nothing changes', () => {
    const { state } = run([{ at: T0, in: ['z1'] }], zones);
    const first = step(state, observation({ at: T0 + 10 * SECOND, in: ['z1'] }), zones, DEFAULT_ZONE_RULES_CONFIG);
    const second = step(first.state, observation({ at: T0 + 20 * SECOND, in: ['z1'] }), zones, DEFAULT_ZONE_RULES_CONFIG);
    expect(first.state).toBe(state);
    expect(second.intents).toBe(first.intents);
    expect(Object.isFrozen(first.intents)).toBe(true);
  });
});
