import { describe, expect, it } from 'vitest';
import { detectSilence, gapWatch } from '../../../../../processors/maritime/rules/ais-gap-rule.ts';
import { feedSilenceIntent, newFeedState, observeReport, vesselSilentFrom } from '../../../../../processors/maritime/rules/feed-silence.ts';
import { headingVerdict } from '../../../../../processors/maritime/rules/heading-rule.ts';
import { findJump, likelyCause } from '../../../../../processors/maritime/rules/track-rule.ts';
import type { ZoneRuleSet } from '../../../../../schemas/maritime-rules.ts';
import { runVessel, types, type Fix } from './rule-harness.ts';
import { makeZone, T0, zoneMap } from './zone-fixtures.ts';

const zone = makeZone({ id: 'z1', name: 'Approach', type: 'monitoring', buffer: { enabled: true, distance_meters: 500 } });
const rules = new Map<string, ZoneRuleSet>([
  ['z1', { ais_rules: { alert_on: [{ ais_loss_seconds: 300 }, { position_jump_nm: 2 }, { heading_speed_mismatch: true }], alert_level: 'high' } }],
]);
const near = (s: number, extra: Partial<Fix> = {}): Fix => ({ s, near: ['z1'], ...extra });
const inside = (s: number, extra: Partial<Fix> = {}): Fix => ({ s, in: ['z1'], ...extra });

describe('heading/COG mismatch (AMSA drift rule)', () => {
  it('needs 0.25 to 20 kn and at least 45 degrees', () => {
    expect(headingVerdict({ sog: 5, cog: 90, heading: 135 }).verdict).toBe('violating');
    expect(headingVerdict({ sog: 5, cog: 90, heading: 134 }).verdict).toBe('band');
    expect(headingVerdict({ sog: 5, cog: 90, heading: 124 }).verdict).toBe('clear');
    expect(headingVerdict({ sog: 0.24, cog: 90, heading: 180 }).verdict).toBe('unknown');
    expect(headingVerdict({ sog: 0.25, cog: 90, heading: 180 }).verdict).toBe('violating');
    expect(headingVerdict({ sog: 20, cog: 90, heading: 180 }).verdict).toBe('violating');
    expect(headingVerdict({ sog: 20.1, cog: 90, heading: 180 }).verdict).toBe('unknown');
    expect(headingVerdict({ sog: 5, cog: 350, heading: 30 }).difference).toBe(40);
  });
  it('never fires on heading, course or speed not available', () => {
    expect(headingVerdict({ sog: 5, cog: 90, heading: null }).verdict).toBe('unknown');
    expect(headingVerdict({ sog: 5, cog: null, heading: 180 }).verdict).toBe('unknown');
    expect(headingVerdict({ sog: null, cog: 90, heading: 180 }).verdict).toBe('unknown');
  });
  it('raises one heading_mismatch per episode near a zone that asks for it', () => {
    const fixes = [near(0, { heading: 180 }), near(10, { heading: 180 }), near(20, { heading: 185 }), near(30, { heading: null })];
    const { intents } = runVessel(fixes, zoneMap(zone), rules);
    expect(types(intents)).toEqual(['heading_mismatch']);
    expect(intents[0]).toMatchObject({ severity: 'medium', metadata: { difference_degrees: 90, alert_level: 'high' } });
  });
});

describe('position jumps', () => {
  const from = { t: T0, lat: 55.7, lon: 12.6, sog: 10 };
  it('counts only the displacement the reported speed does not explain', () => {
    // 10 kn over 10 min with 25 % slack reaches 2.08 nm; 4 nm leaves 1.92 unexplained: under 2 nm.
    expect(findJump(from, { t: T0 + 600_000, lat: 55.7 + 4 / 60, lon: 12.6, sog: 10 }, 2)).toBeUndefined();
    expect(findJump(from, { t: T0 + 600_000, lat: 55.7 + 4.2 / 60, lon: 12.6, sog: 10 }, 2)).toMatchObject({ trigger: 'position_jump_nm' });
  });
  it('uses implied-speed tiers: over 60 kn within 10 minutes, over 100 kn beyond', () => {
    // 1 nm in 50 s is 72 kn.
    expect(findJump(from, { t: T0 + 50_000, lat: 55.7 + 1 / 60, lon: 12.6, sog: 10 }, undefined)).toMatchObject({ trigger: 'implied_speed', tier_knots: 60 });
    // 30 nm in 20 min is 90 kn: below the 100 kn tier for longer intervals.
    expect(findJump(from, { t: T0 + 1_200_000, lat: 55.7 + 30 / 60, lon: 12.6, sog: 10 }, undefined)).toBeUndefined();
    expect(findJump(from, { t: T0 + 1_200_000, lat: 55.7 + 40 / 60, lon: 12.6, sog: 10 }, undefined)).toMatchObject({ tier_knots: 100 });
  });
  it('ignores fix noise under 0.5 nm however short the interval', () => {
    expect(findJump(from, { t: T0 + 1_000, lat: 55.7 + 0.4 / 60, lon: 12.6, sog: 10 }, 0.1)).toBeUndefined();
  });
  it('names a likely cause', () => {
    expect(likelyCause({ lat: 0.1, lon: 0.2, position_accuracy: true }).cause).toBe('bad_fix');
    expect(likelyCause({ lat: 55, lon: 12, position_accuracy: false }).cause).toBe('bad_fix');
    expect(likelyCause({ lat: 55, lon: 12, position_accuracy: null }).cause).toBe('spoofing');
  });
  it('raises position_jump once for a single bad fix, and identity_conflict when the MMSI keeps alternating', () => {
    const far = 55.7 + 20 / 60;
    const bad = runVessel([inside(0), inside(10, { lat: far }), inside(20), inside(30)], zoneMap(zone), rules);
    expect(types(bad.intents)).toEqual(['position_jump']);
    expect(bad.intents[0]?.metadata).toMatchObject({ likely_cause: 'spoofing', trigger: 'position_jump_nm' });
    const twins = runVessel([inside(0), inside(10, { lat: far }), inside(20), inside(30, { lat: far }), inside(40), inside(50, { lat: far })], zoneMap(zone), rules);
    expect(types(twins.intents)).toEqual(['position_jump', 'identity_conflict']);
    expect(twins.intents[1]).toMatchObject({ severity: 'high', metadata: { likely_cause: 'second_transmitter', alternations: 2 } });
  });
  it('judges nothing away from zones with ais_rules', () => {
    expect(runVessel([{ s: 0 }, { s: 10, lat: 56.5 }], zoneMap(zone), rules).intents).toEqual([]);
  });
});

describe('AIS gaps and feed silence', () => {
  it('raises ais_gap while silent, once, at the instant the limit passed, and records the end', () => {
    const { state } = runVessel([inside(0)], zoneMap(zone), rules);
    const watch = gapWatch(state, zoneMap(zone), rules);
    expect(detectSilence(state, T0 + 300_000, state.last_seen_at, watch)).toBeUndefined();
    const gap = detectSilence(state, T0 + 300_001, state.last_seen_at, watch);
    expect(gap).toMatchObject({ type: 'ais_gap', severity: 'high', timestamp: '2024-06-03T10:05:00.000Z', metadata: { ais_loss_seconds: 300 } });
    expect(detectSilence(state, T0 + 400_000, state.last_seen_at, watch)).toBeUndefined();
    const resumed = runVessel([inside(600, { lat: 55.71 })], zoneMap(zone), rules, state);
    expect(types(resumed.intents)).toEqual(['ais_gap_end']);
    expect(resumed.intents[0]?.metadata).toMatchObject({ gap_duration_seconds: 600, distance_nm: 0.6 });
  });
  it('finds the gap at the next report when housekeeping had not, with the same key', () => {
    const { state } = runVessel([inside(0)], zoneMap(zone), rules);
    const silent = structuredClone(state);
    const whileSilent = detectSilence(silent, T0 + 500_000, silent.last_seen_at, gapWatch(silent, zoneMap(zone), rules));
    const { intents } = runVessel([inside(600)], zoneMap(zone), rules, state);
    expect(types(intents)).toEqual(['ais_gap', 'ais_gap_end']);
    expect(intents[0]?.key).toBe(whileSilent?.key);
  });
  it('does not watch vessels far from zones with ais_loss_seconds', () => {
    const { state } = runVessel([{ s: 0 }], zoneMap(zone), rules);
    expect(gapWatch(state, zoneMap(zone), rules)).toBeUndefined();
  });
  it('turns a feed that went quiet into one outage, and counts vessel silence from its end', () => {
    const feed = newFeedState();
    expect(observeReport(feed, 'north', T0, 300)).toBeUndefined();
    expect(observeReport(feed, 'north', T0 + 300_000, 300)).toBeUndefined();
    const outage = observeReport(feed, 'north', T0 + 900_000, 300);
    expect(outage).toEqual({ silent_from: T0 + 300_000, resumed_at: T0 + 900_000 });
    feed.sourceOf.set(1, 'north');
    // Silent from the feed's last report before the outage: counted from its return.
    expect(vesselSilentFrom(feed, 1, T0 + 298_000)).toBe(T0 + 900_000);
    expect(vesselSilentFrom(feed, 1, T0 + 950_000)).toBe(T0 + 950_000);
    const a = feedSilenceIntent(outage as NonNullable<typeof outage>, 300, 'north');
    const b = feedSilenceIntent({ silent_from: T0 + 310_000, resumed_at: T0 + 905_000 }, 300, 'north');
    expect(a).toMatchObject({ type: 'system_health_change', category: 'system', severity: 'high', metadata: { component: 'ais_feed', feed: 'north', silence_seconds: 600 } });
    expect(b.key).toBe(a.key);
    expect(feedSilenceIntent({ silent_from: T0 + 310_000, resumed_at: T0 + 905_000 }, 300, 'south').key).not.toBe(a.key);
  });
  it('counts silence from the first report of a feed after a start', () => {
    const feed = newFeedState();
    observeReport(feed, 'north', T0 + 3_600_000, 300);
    feed.sourceOf.set(1, 'north');
    expect(vesselSilentFrom(feed, 1, T0)).toBe(T0 + 3_600_000);
  });
});
