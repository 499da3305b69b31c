import { describe, expect, it } from 'vitest';
import { occupancyDecision, ScheduleWatch, windowInForce } from '../../../../../processors/maritime/rules/occupancy-rule.ts';
import { typeVerdict } from '../../../../../processors/maritime/rules/vessel-type-rule.ts';
import type { ZoneRuleSet } from '../../../../../schemas/maritime-rules.ts';
import { runVessel, types } from './rule-harness.ts';
import { makeZone, MMSI, zoneMap } from './zone-fixtures.ts';

describe('vessel type rules', () => {
  const rule = { denied_types: ['tanker'], allowed_types: ['tug', 'Pilot'], alert_on_denied_entry: true, alert_level: 'high' as const };
  it('judges denied, not allowed, unknown and allowed types', () => {
    expect(typeVerdict(rule, 'tanker')).toBe('denied');
    expect(typeVerdict(rule, 'cargo')).toBe('not_allowed');
    expect(typeVerdict(rule, 'pilot')).toBe('ok');
    expect(typeVerdict(rule, null)).toBe('unknown_type');
    expect(typeVerdict(rule, 'unknown')).toBe('unknown_type');
    expect(typeVerdict({ ...rule, allowed_types: undefined }, null)).toBe('ok');
    expect(typeVerdict({ ...rule, allowed_types: undefined }, 'cargo')).toBe('ok');
  });

  const zone = makeZone({ id: 'z1', name: 'Cruise berth', type: 'restricted' });
  const rules = new Map<string, ZoneRuleSet>([['z1', { vessel_type_rules: { denied_types: ['tanker'], alert_on_denied_entry: true, alert_level: 'critical' } }]]);
  it('alerts once per stay at the rule level, and again at a new stay', () => {
    const { intents } = runVessel(
      [{ s: 0, in: ['z1'], category: 'tanker' }, { s: 10, in: ['z1'], category: 'tanker' }, { s: 20, category: 'tanker' }, { s: 30, category: 'tanker' }, { s: 90, category: 'tanker' }, { s: 100, in: ['z1'], category: 'tanker' }],
      zoneMap(zone), rules,
    );
    expect(types(intents)).toEqual(['vessel_type_violation', 'vessel_type_violation']);
    expect(intents[0]).toMatchObject({ severity: 'critical', requires_action: true, metadata: { verdict: 'denied', alert_level: 'critical' } });
    expect(intents[0]?.key).not.toBe(intents[1]?.key);
  });
  it('alerts when the type becomes known during the stay; never for an MMSI the zone authorizes; never when alert_on_denied_entry is false', () => {
    expect(types(runVessel([{ s: 0, in: ['z1'], category: null }, { s: 10, in: ['z1'], category: 'tanker' }], zoneMap(zone), rules).intents)).toEqual(['vessel_type_violation']);
    const authorized = makeZone({ id: 'z1', name: 'Cruise berth', authorized_vessels: [{ mmsi_list: [MMSI] }] });
    expect(runVessel([{ s: 0, in: ['z1'], category: 'tanker' }], zoneMap(authorized), rules).intents).toEqual([]);
    const quiet = new Map<string, ZoneRuleSet>([['z1', { vessel_type_rules: { denied_types: ['tanker'], alert_on_denied_entry: false, alert_level: 'high' } }]]);
    expect(runVessel([{ s: 0, in: ['z1'], category: 'tanker' }], zoneMap(zone), quiet).intents).toEqual([]);
  });
});

describe('time rules', () => {
  const schedule = { name: 'night', days: ['mon' as const], hours: '22:00-06:00', max_vessels: 2, alert_level: 'high' as const };
  it('alerts above max_vessels, again only after clearing', () => {
    expect(occupancyDecision(false, 2, schedule, true)).toBe('keep');
    expect(occupancyDecision(false, 3, schedule, true)).toBe('raise');
    expect(occupancyDecision(true, 4, schedule, true)).toBe('keep');
    expect(occupancyDecision(true, 2, schedule, true)).toBe('clear');
    expect(occupancyDecision(true, 5, schedule, false)).toBe('clear');
    expect(occupancyDecision(false, 5, schedule, false)).toBe('keep');
  });
  it('reads the window in the zone schedule time zone, UTC without one, the whole day without hours', () => {
    const utc = makeZone();
    const copenhagen = makeZone({ schedule: { days: ['mon'], hours: '00:00-24:00', timezone: 'Europe/Copenhagen' } });
    const mondayLate = Date.parse('2024-06-03T21:30:00Z'); // 23:30 in Copenhagen
    expect(windowInForce(schedule, utc, mondayLate)).toBe(false);
    expect(windowInForce(schedule, copenhagen, mondayLate)).toBe(true);
    expect(windowInForce({ ...schedule, hours: undefined }, utc, Date.parse('2024-06-03T00:00:00Z'))).toBe(true);
    expect(windowInForce({ ...schedule, hours: undefined }, utc, Date.parse('2024-06-04T00:00:00Z'))).toBe(false);
  });

  it('names the zones whose windows opened or closed, once each, and again when a batch was not confirmed', () => {
    const zone = makeZone();
    const zones = new Map([[zone.id, zone]]);
    const ruleSets = new Map([[zone.id, { time_rules: { schedules: [schedule] } }], ['zone_other', {}]]);
    const watch = new ScheduleWatch();
    const mondayEvening = Date.parse('2024-06-03T21:59:00Z');
    const mondayNight = Date.parse('2024-06-03T22:00:00Z');
    // A fresh watch names every zone with time rules once (a start or restart re-judges them).
    const first = watch.due(zones, ruleSets, mondayEvening);
    expect(first.zones).toEqual([zone.id]);
    first.confirm();
    expect(watch.due(zones, ruleSets, mondayEvening).zones).toEqual([]);
    // 22:00 opens the window; a batch that fails before confirming names it again.
    expect(watch.due(zones, ruleSets, mondayNight).zones).toEqual([zone.id]);
    const retried = watch.due(zones, ruleSets, mondayNight);
    expect(retried.zones).toEqual([zone.id]);
    retried.confirm();
    expect(watch.due(zones, ruleSets, mondayNight + 60_000).zones).toEqual([]);
    // Tuesday 06:00 closes it.
    expect(watch.due(zones, ruleSets, Date.parse('2024-06-04T06:00:00Z')).zones).toEqual([zone.id]);
  });
});
