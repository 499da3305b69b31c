import { describe, expect, it } from 'vitest';
import type { ZoneRuleSet } from '../../../../../schemas/maritime-rules.ts';
import { runVessel, types, type Fix } from './rule-harness.ts';
import { makeZone, zoneMap } from './zone-fixtures.ts';

const zone = makeZone({ id: 'z1', name: 'Outer anchorage', type: 'anchorage' });
const rules = new Map<string, ZoneRuleSet>([['z1', { loitering_rules: { max_speed_knots: 2, min_minutes: 120, alert_level: 'medium' } }]]);
const slow = (minute: number, sog: number | null = 1): Fix => ({ s: minute * 60, sog, in: ['z1'] });

describe('loitering (beyond the spec, GFW definition)', () => {
  it('fires once when the vessel has been under 2 kn for 2 hours, with its parameters and source', () => {
    const fixes = [0, 30, 60, 90, 119, 120, 150].map((m) => slow(m));
    const { intents } = runVessel(fixes, zoneMap(zone), rules);
    expect(types(intents)).toEqual(['loitering']);
    expect(intents[0]).toMatchObject({ timestamp: '2024-06-03T12:00:00.000Z', severity: 'medium', metadata: { max_speed_knots: 2, min_minutes: 120, duration_minutes: 120 } });
    expect(String(intents[0]?.metadata.source)).toContain('Global Fishing Watch');
  });
  it('restarts after two reports at 2 kn or more, ignores one, and never judges a report without speed', () => {
    expect(runVessel([slow(0), slow(60), slow(61, 2), slow(62, 2), slow(100), slow(190)], zoneMap(zone), rules).intents).toEqual([]);
    expect(types(runVessel([slow(0), slow(60, 3), slow(61), slow(120)], zoneMap(zone), rules).intents)).toEqual(['loitering']);
    expect(runVessel([slow(0, null), slow(60, null), slow(130, null)], zoneMap(zone), rules).intents).toEqual([]);
  });
});
