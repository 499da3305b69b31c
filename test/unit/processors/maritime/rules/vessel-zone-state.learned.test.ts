import { describe, expect, it } from 'vitest';
import type { RuleZone } from '../../../../../processors/maritime/rules/config.ts';
import { learnVessel } from '../../../../../processors/maritime/rules/vessel-zone-state.ts';
import { config, every, iso, makeZone, MINUTE, run, T0, timeline, zoneMap, type Report } from './zone-fixtures.ts';

// Issue 8, defect 3: static data that reaches the processor after the report it concerns.
const IN = { in: ['z1'] };
/** A vessel whose static data has not been seen: no category (the fixtures' default is cargo). */
const UNKNOWN = { category: '', name: '' };
const zoneOf = (overrides: Partial<RuleZone> = {}): Map<string, RuleZone> =>
  zoneMap(makeZone({ id: 'z1', type: 'restricted', alert_level: 'high', authorized_vessels: [{ vessel_types: ['tug'] }], ...overrides }));

function inside(reports: Report[], zones: Map<string, RuleZone>) {
  const { state, intents } = run(reports, zones);
  if (state === undefined) throw new Error('no state');
  return { state, intents };
}

describe('learnVessel: a vessel type learned after the report it concerns', () => {
  it('records that an alerting vessel turned out to be authorized, at its last report, and stops its dwell alerts', () => {
    const zones = zoneOf();
    const { state, intents: before } = inside(every(MINUTE, T0, T0 + 5 * MINUTE, { ...IN, ...UNKNOWN }), zones);
    expect(before.map((i) => [i.type, i.severity, i.metadata.authorized])).toEqual([['zone_entry', 'high', false]]);

    const learned = learnVessel(state, { name: 'LATE TUG', category: 'tug' }, zones, config());
    expect(learned.changed).toBe(true);
    expect(learned.intents).toHaveLength(1);
    expect(learned.intents[0]).toMatchObject({
      type: 'zone_entry',
      severity: 'low',
      requires_action: false,
      timestamp: iso(T0 + 4 * MINUTE),
      title: 'LATE TUG (MMSI 219000001) is in restricted zone North Basin (authorized)',
      metadata: { reason: 'authorized', authorized: true, alerting: false, vessel_name: 'LATE TUG', vessel_type: 'tug', entered_at: iso(T0) },
    });
    expect(state).toMatchObject({ vessel_name: 'LATE TUG', vessel_type: 'tug' });

    // Past the 15 minute threshold: no dwell alert for the authorized vessel.
    const later = run(every(MINUTE, T0 + 5 * MINUTE, T0 + 40 * MINUTE, { ...IN, name: 'LATE TUG', category: 'tug' }), zones, config(), state);
    expect(later.intents).toEqual([]);
  });

  it('gives a vessel whose type is no longer authorized the alert it would have had, its dwell rungs counted from then', () => {
    const zones = zoneOf();
    const { state, intents: before } = inside(every(MINUTE, T0, T0 + 5 * MINUTE, { ...IN, category: 'tug' }), zones);
    expect(before.map((i) => [i.type, i.severity])).toEqual([['zone_entry', 'low']]);

    const learned = learnVessel(state, { name: 'NORDIC STAR', category: 'cargo' }, zones, config());
    expect(learned.intents.map((i) => [i.type, i.timestamp, i.severity, i.requires_action, i.metadata.reason])).toEqual([
      ['zone_entry', iso(T0 + 4 * MINUTE), 'high', true, 'alerting_started'],
    ]);
    expect(learned.intents[0]?.key).not.toBe(before[0]?.key);
    expect(learned.intents[0]?.description).toContain('its vessel type (cargo), learned from static data after the entry');

    const later = run(every(MINUTE, T0 + 5 * MINUTE, T0 + 20 * MINUTE, IN), zones, config(), state);
    expect(timeline(later.intents)).toEqual([`dwell_threshold@${iso(T0 + 19 * MINUTE)}`]);
  });

  it('fires an exclusion zone\'s entry and dwell alert together when authorization is withdrawn', () => {
    const zones = zoneOf({ type: 'exclusion', alert_level: 'critical' });
    const { state } = inside([{ at: T0, ...IN, category: 'tug' }], zones);
    const learned = learnVessel(state, { category: 'cargo' }, zones, config());
    expect(timeline([...learned.intents])).toEqual([`zone_entry@${iso(T0)}`, `dwell_threshold@${iso(T0)}`]);
    expect(learned.intents[0]).toMatchObject({ severity: 'critical', metadata: { reason: 'alerting_started' } });
  });

  it('gives a vessel in the buffer the pre-alert it would have had', () => {
    const zones = zoneOf({ buffer: { enabled: true, distance_meters: 300 } });
    const { state, intents: before } = inside([{ at: T0, near: ['z1'], category: 'tug' }], zones);
    expect(before).toEqual([]);
    const learned = learnVessel(state, { category: 'cargo' }, zones, config());
    expect(learned.intents.map((i) => [i.type, i.timestamp])).toEqual([['zone_approach', iso(T0)]]);
  });

  it('changes only the name when the type is the same, and nothing when the facts add nothing', () => {
    const zones = zoneOf();
    const { state } = inside([{ at: T0, ...IN, ...UNKNOWN }], zones);
    expect(learnVessel(state, { name: 'NAMED', category: null }, zones, config())).toEqual({ changed: true, intents: [] });
    expect(state).toMatchObject({ vessel_name: 'NAMED', vessel_type: null });
    const copy = structuredClone(state);
    expect(learnVessel(state, { name: null, category: null }, zones, config())).toEqual({ changed: false, intents: [] });
    expect(state).toEqual(copy);
  });

  it('records nothing for a now authorized vessel when unalerted presence is not recorded', () => {
    const zones = zoneOf();
    const { state } = inside([{ at: T0, ...IN, ...UNKNOWN }], zones);
    expect(learnVessel(state, { category: 'tug' }, zones, config({ record_unalerted_presence: false })).intents).toEqual([]);
  });

  it('gives the same keys for the same state and facts', () => {
    const zones = zoneOf();
    const { state } = inside(every(MINUTE, T0, T0 + 3 * MINUTE, { ...IN, category: 'tug' }), zones);
    const twin = structuredClone(state);
    const keys = (s: typeof state) => learnVessel(s, { category: 'cargo' }, zones, config()).intents.map((i) => i.key);
    const first = keys(state);
    expect(first).toHaveLength(1);
    expect(keys(twin)).toEqual(first);
  });
});
