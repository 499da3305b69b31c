import { describe, expect, it } from 'vitest';
import {
  distanceMeters,
  encounterFixes,
  encounterIntent,
  encounterParams,
  pairObservations,
  stepPair,
  type EncounterFix,
  type PairEpisode,
  type PairObservation,
} from '../../../../../processors/maritime/rules/encounter-rule.ts';
import type { RuleReport } from '../../../../../processors/maritime/rules/rule-context.ts';
import { newVesselState, newZonePresence, type VesselState } from '../../../../../processors/maritime/rules/vessel-state.ts';
import type { ZoneRuleSet } from '../../../../../schemas/maritime-rules.ts';
import { makeZone, MINUTE, T0, zoneMap } from './zone-fixtures.ts';

const GFW_RULE = { max_distance_meters: 500, max_speed_knots: 2, min_minutes: 120, alert_level: 'medium' as const };
const GFW = encounterParams(GFW_RULE);
const anchorage = makeZone({ id: 'z1', name: 'Outer anchorage', type: 'anchorage', alert_level: 'low' });
const ruled = new Map<string, ZoneRuleSet>([['z1', { encounter_rules: GFW_RULE }]]);

/** Steps a pair through observations (minutes after T0, metres apart or null), collecting outcomes. */
function run(observations: [number, number | null][], params = GFW, start?: PairEpisode): { outcomes: string[]; episode: PairEpisode | undefined } {
  let episode = start;
  const outcomes: string[] = [];
  for (const [minute, distance_m] of observations) {
    const step = stepPair(episode, { at: T0 + minute * MINUTE, distance_m, lat: 0, lon: 0 }, params);
    if (step.outcome !== undefined) outcomes.push(`${step.outcome}@${minute}`);
    episode = step.episode;
  }
  return { outcomes, episode };
}

describe('encounter pair episodes (GFW: 500 m, 2 kn, 2 h)', () => {
  it('defaults to Global Fishing Watch\'s parameters', () => {
    expect(encounterParams({} as typeof GFW_RULE)).toEqual(GFW_RULE);
  });

  it('reports once at the observation completing 2 h, then the end at the first observation apart', () => {
    const { outcomes, episode } = run([[0, 300], [60, 200], [119, 400], [120, 450], [150, 100], [180, 600], [181, 100]]);
    expect(outcomes).toEqual(['encounter@120', 'encounter_end@180']);
    // A new episode opened at 181 and has not lasted.
    expect(episode).toMatchObject({ open: true, since: T0 + 181 * MINUTE, fired: false });
  });

  it('counts exactly 500 m as close and 500.1 m as apart; exactly 120 min fires and 119 does not', () => {
    expect(run([[0, 500], [120, 500]]).outcomes).toEqual(['encounter@120']);
    expect(run([[0, 500], [60, 500.1], [61, 100], [180, 100]]).outcomes).toEqual([]);
    expect(run([[0, 100], [119, 100]]).outcomes).toEqual([]);
  });

  it('ends quietly, with no event, a pair that separates before 2 h', () => {
    const { outcomes, episode } = run([[0, 100], [100, 100], [110, 900], [200, 900]]);
    expect(outcomes).toEqual([]);
    expect(episode?.open).toBe(false);
  });

  it('treats "not close" (a vessel not slow or gone) as the end, like a separation', () => {
    expect(run([[0, 100], [121, 100], [130, null]]).outcomes).toEqual(['encounter@121', 'encounter_end@130']);
  });

  it('ignores observations not newer than the last judged (a replay, the other instance already judged it)', () => {
    const first = run([[0, 100], [120, 100]]);
    expect(first.outcomes).toEqual(['encounter@120']);
    expect(run([[60, 100], [120, 100]], GFW, first.episode).outcomes).toEqual([]);
    expect(run([[120, 900]], GFW, first.episode).outcomes).toEqual([]);
    expect(run([[121, 900]], GFW, first.episode).outcomes).toEqual(['encounter_end@121']);
  });

  it('keeps the closest distance and builds both events with the parameters, source and deterministic keys', () => {
    const pair = { zone_id: 'z1', mmsi_lo: 219_000_001, mmsi_hi: 219_000_002 };
    const started = run([[0, 300], [60, 120], [120, 250]]).episode as PairEpisode;
    expect(started.closest_m).toBe(120);
    const alert = encounterIntent('encounter', anchorage, pair, started, GFW, T0 + 120 * MINUTE, { lat: 54.7, lng: 14.3 });
    expect(alert).toMatchObject({
      type: 'encounter', severity: 'medium', requires_action: true, timestamp: '2024-06-03T12:00:00.000Z',
      metadata: { mmsi: 219_000_001, other_mmsi: 219_000_002, encounter_since: '2024-06-03T10:00:00.000Z', duration_minutes: 120, closest_distance_meters: 120, max_distance_meters: 500, max_speed_knots: 2, min_minutes: 120 },
    });
    expect(String(alert.metadata.source)).toContain('Global Fishing Watch');
    const end = encounterIntent('encounter_end', anchorage, pair, { ...started, last_close_at: T0 + 150 * MINUTE }, GFW, T0 + 155 * MINUTE, { lat: 54.7, lng: 14.3 });
    expect(end).toMatchObject({ type: 'encounter_end', severity: 'low', requires_action: false, metadata: { duration_minutes: 150, ended_at: '2024-06-03T12:35:00.000Z' } });
    expect(encounterIntent('encounter', anchorage, pair, started, GFW, T0 + 125 * MINUTE, { lat: 0, lng: 0 }).key).toBe(alert.key);
  });
});

describe('pairing two vessels\' fixes', () => {
  const fix = (mmsi: number, minute: number, lon: number, slow = true): EncounterFix => ({ zone_id: 'z1', mmsi, t: T0 + minute * MINUTE, lat: 54.7, lon, slow });
  const distances = (obs: PairObservation[]) => obs.map((o) => (o.distance_m === null ? null : Math.round(o.distance_m)));

  it('pairs each fix with the other vessel\'s newest one, skips an instant whose partner fix is more than 10 min away, and treats not slow as not close', () => {
    const apart = distanceMeters(54.7, 14.3, 54.7, 14.305);
    expect(Math.round(apart)).toBe(321);
    const obs = pairObservations([fix(1, 0, 14.3), fix(1, 20, 14.3), fix(1, 23, 14.3, false)], [fix(2, 1, 14.305), fix(2, 9, 14.305)]);
    // At 20 the partner's newest fix is 11 min old: no observation; at 23 the vessel is no longer slow.
    expect(obs.map((o) => (o.at - T0) / MINUTE)).toEqual([0, 1, 9, 23]);
    expect(distances(obs)).toEqual([321, 321, 321, null]);
  });

  it('has nothing to pair with a partner that has no fix (it sped up or left)', () => {
    expect(distances(pairObservations([fix(1, 0, 14.3)], []))).toEqual([null]);
  });
});

describe('which reports touch the encounter table', () => {
  const inside = (): VesselState => ({ ...newVesselState(219_000_001), zones: [{ ...newZonePresence('z1'), presence: 'inside', entered_at: T0 }] });
  const report = (minute: number, sog: number | null): RuleReport => ({ t: T0 + minute * MINUTE, lat: 54.7, lon: 14.3, sog, cog: null, heading: null, position_accuracy: null });

  it('writes a fix only under 2 kn (1.99 yes, 2.0 no), removes it when the vessel speeds up, and never counts "not available"', () => {
    const v = inside();
    expect(encounterFixes(v, report(0, null), zoneMap(anchorage), ruled)).toEqual([]);
    expect(v.rules?.encounter).toBeUndefined();
    expect(encounterFixes(v, report(1, 2.0), zoneMap(anchorage), ruled)).toEqual([]);
    expect(encounterFixes(v, report(2, 1.99), zoneMap(anchorage), ruled).map((f) => f.slow)).toEqual([true]);
    expect(v.rules?.encounter).toEqual(['z1']);
    // Not available keeps the fix where it is (neither slow nor fast).
    expect(encounterFixes(v, report(3, null), zoneMap(anchorage), ruled)).toEqual([]);
    expect(v.rules?.encounter).toEqual(['z1']);
    expect(encounterFixes(v, report(4, 2.5), zoneMap(anchorage), ruled).map((f) => f.slow)).toEqual([false]);
    expect(v.rules?.encounter).toBeUndefined();
  });

  it('removes the fix of a vessel that left the zone, and costs nothing where no zone has an encounter rule', () => {
    const v = inside();
    encounterFixes(v, report(0, 0.5), zoneMap(anchorage), ruled);
    v.zones = [];
    expect(encounterFixes(v, report(1, 0.5), zoneMap(anchorage), ruled)).toMatchObject([{ zone_id: 'z1', slow: false }]);
    expect(v.rules?.encounter).toBeUndefined();
    expect(encounterFixes(inside(), report(0, 0.5), zoneMap(anchorage), new Map())).toEqual([]);
  });
});
