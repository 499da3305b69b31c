import type { EncounterRule, ZoneRuleSet } from '../../../schemas/maritime-rules.ts';
import type { AlertLevel } from '../../../schemas/zone.ts';
import type { RuleZone } from './config.ts';
import { requiresActionAt, severityOfAlertLevel } from './event-severity.ts';
import { dropIfEmpty, slices, watchedZones, type RuleReport } from './rule-context.ts';
import { distanceNm, iso, round, type RuleIntent } from './rule-intent.ts';
import type { VesselState } from './vessel-state.ts';

const METERS_PER_NM = 1852;

/** Global Fishing Watch's encounter definition (their defaults here); they find encounters in daily batches. */
export const ENCOUNTER_SOURCE = 'Global Fishing Watch encounter events: two vessels within 500 m, both < 2 kn, for >= 2 h';

/**
 * A partner's fix older (or newer) than this against the report it is paired with says nothing about
 * where the partner is then: the instant is not judged (neither close nor apart), so a vessel silent for
 * a while, or an instance behind the other in event time, neither ends nor extends an episode; it is
 * judged again once both have fixes this close in time. A vessel at anchor reports every 3 minutes
 * (ITU-R M.1371 class A); this allows several missed reports.
 */
export const PARTNER_FRESH_MS = 10 * 60_000;

export interface EncounterParams {
  max_distance_meters: number;
  max_speed_knots: number;
  min_minutes: number;
  alert_level: AlertLevel;
}

export function encounterParams(rule: EncounterRule): EncounterParams {
  return {
    max_distance_meters: rule.max_distance_meters ?? 500,
    max_speed_knots: rule.max_speed_knots ?? 2,
    min_minutes: rule.min_minutes ?? 120,
    alert_level: rule.alert_level ?? 'medium',
  };
}

/**
 * One vessel's report in a zone with an encounter rule, for the shared table: `slow` (under the limit)
 * writes its fix; not slow (faster, or out of the zone) removes it and ends the vessel's open pairs there.
 */
export interface EncounterFix {
  zone_id: string;
  mmsi: number;
  t: number;
  lat: number;
  lon: number;
  slow: boolean;
}

/**
 * What this report means for encounters, and the vessel's `encounter` slice (zones where it has a fix in
 * the table) kept in step. Only a vessel slow inside a zone with an encounter rule, or one that just
 * stopped being so, yields a fix: every other report costs nothing. A report without speed ("not
 * available") never counts as slow and changes nothing, as for loitering.
 */
export function encounterFixes(vessel: VesselState, report: RuleReport, zones: ReadonlyMap<string, RuleZone>, ruleSets: ReadonlyMap<string, ZoneRuleSet>): EncounterFix[] {
  const had = vessel.rules?.encounter;
  const watched = watchedZones({ vessel, zones, ruleSets }, 'encounter_rules', false);
  if (had === undefined && watched.length === 0) return NO_FIXES;
  const out: EncounterFix[] = [];
  const now: string[] = [];
  const fix = (zone_id: string, slow: boolean) => out.push({ zone_id, mmsi: vessel.mmsi, t: report.t, lat: report.lat, lon: report.lon, slow });
  for (const [zone, rule] of watched) {
    if (report.sog === null) {
      if (had?.includes(zone.id) === true) now.push(zone.id);
      continue;
    }
    if (report.sog < encounterParams(rule).max_speed_knots) {
      now.push(zone.id);
      fix(zone.id, true);
    } else if (had?.includes(zone.id) === true) fix(zone.id, false);
  }
  for (const zone_id of had ?? []) if (!watched.some(([zone]) => zone.id === zone_id)) fix(zone_id, false);
  if (now.length > 0) slices(vessel).encounter = now;
  else if (had !== undefined) {
    slices(vessel).encounter = [];
    dropIfEmpty(vessel, 'encounter');
  }
  return out;
}

const NO_FIXES: EncounterFix[] = [];

/** A pair's current or last episode, as stored in maritime_encounter_pairs (times in ms). */
export interface PairEpisode {
  open: boolean;
  since: number;
  last_close_at: number;
  /** The newest observation judged: older ones (a replay, a partner behind in event time) are ignored. */
  last_at: number;
  closest_m: number;
  fired: boolean;
}

/** The pair at one instant: the distance between the two vessels' fixes, or null when one is not slow (faster, out of the zone, gone). */
export interface PairObservation {
  at: number;
  distance_m: number | null;
  /** Where the event is placed: midway between the two fixes. */
  lat: number;
  lon: number;
}

export type PairOutcome = 'encounter' | 'encounter_end' | undefined;

/**
 * The pair episode's next state. Close (within the distance, both slow) opens or continues it; the
 * first observation at or past `min_minutes` since it opened reports `encounter`, once; the first
 * observation not close ends it, reporting `encounter_end` if `encounter` was reported. Pure; mutates
 * nothing it is given.
 */
export function stepPair(episode: PairEpisode | undefined, obs: PairObservation, params: EncounterParams): { episode: PairEpisode | undefined; outcome: PairOutcome } {
  if (episode !== undefined && obs.at <= episode.last_at) return { episode, outcome: undefined };
  const close = obs.distance_m !== null && obs.distance_m <= params.max_distance_meters;
  if (!close) {
    if (episode === undefined) return { episode, outcome: undefined };
    const ended: PairEpisode = { ...episode, open: false, last_at: obs.at };
    return { episode: ended, outcome: episode.open && episode.fired ? 'encounter_end' : undefined };
  }
  const d = obs.distance_m as number;
  const next: PairEpisode =
    episode === undefined || !episode.open
      ? { open: true, since: obs.at, last_close_at: obs.at, last_at: obs.at, closest_m: d, fired: false }
      : { ...episode, last_close_at: obs.at, last_at: obs.at, closest_m: Math.min(episode.closest_m, d) };
  if (next.fired || obs.at - next.since < params.min_minutes * 60_000) return { episode: next, outcome: undefined };
  next.fired = true;
  return { episode: next, outcome: 'encounter' };
}

/**
 * The pair's observations, in event time, from both vessels' fixes (each list in time order; a partner
 * owned by another instance has one, its row in the table). Each fix is paired with the other vessel's
 * newest fix not after it, or its first when none is (a partner ahead in event time). A vessel not slow,
 * or a partner with no fix at all (it sped up or left: its row is gone), is not close; a partner fix more
 * than PARTNER_FRESH_MS away in time gives no observation.
 */
export function pairObservations(a: readonly EncounterFix[], b: readonly EncounterFix[]): PairObservation[] {
  const merged = [...a.map((f) => [f, b] as const), ...b.map((f) => [f, a] as const)].sort((x, y) => x[0].t - y[0].t);
  const out: PairObservation[] = [];
  for (const [fix, others] of merged) {
    let other = others[0];
    for (const o of others) if (o.t <= fix.t) other = o;
    if (other === undefined) {
      out.push({ at: fix.t, distance_m: null, lat: fix.lat, lon: fix.lon });
      continue;
    }
    const midway = { lat: (fix.lat + other.lat) / 2, lon: (fix.lon + other.lon) / 2 };
    if (!fix.slow || !other.slow) out.push({ at: fix.t, distance_m: null, ...midway });
    else if (Math.abs(fix.t - other.t) <= PARTNER_FRESH_MS) out.push({ at: fix.t, distance_m: distanceMeters(fix.lat, fix.lon, other.lat, other.lon), ...midway });
  }
  return out;
}

/** Haversine on the mean sphere; PostGIS's ST_DWithin (spheroid) finds the candidates, this decides (0.3 % apart at most). */
export function distanceMeters(lat1: number, lon1: number, lat2: number, lon2: number): number {
  return distanceNm(lat1, lon1, lat2, lon2) * METERS_PER_NM;
}

export interface PairKey {
  zone_id: string;
  mmsi_lo: number;
  mmsi_hi: number;
}

/** `encounter` or `encounter_end` for a pair; the id's key is the pair and the episode's start, so a replay repeats it. */
export function encounterIntent(
  outcome: 'encounter' | 'encounter_end',
  zone: RuleZone,
  pair: PairKey,
  episode: PairEpisode,
  params: EncounterParams,
  at_ms: number,
  where: { lat: number; lng: number },
): RuleIntent {
  const level = params.alert_level;
  const duration = Math.floor(((outcome === 'encounter' ? at_ms : episode.last_close_at) - episode.since) / 60_000);
  const label = `MMSI ${pair.mmsi_lo} and MMSI ${pair.mmsi_hi}`;
  const metadata = {
    mmsi: pair.mmsi_lo,
    other_mmsi: pair.mmsi_hi,
    zone_id: zone.id,
    zone_name: zone.name,
    zone_type: zone.type,
    alert_level: level,
    encounter_since: iso(episode.since),
    duration_minutes: duration,
    closest_distance_meters: round(episode.closest_m, 0),
    max_distance_meters: params.max_distance_meters,
    max_speed_knots: params.max_speed_knots,
    min_minutes: params.min_minutes,
    source: ENCOUNTER_SOURCE,
  };
  const start = outcome === 'encounter';
  return {
    key: `${outcome}:${zone.id}:${pair.mmsi_lo}:${pair.mmsi_hi}:${iso(episode.since)}`,
    type: outcome,
    category: 'maritime',
    severity: start ? severityOfAlertLevel(level) : 'low',
    timestamp: iso(at_ms),
    title: start ? `Encounter of ${label} in ${zone.type} zone ${zone.name}` : `Encounter of ${label} in ${zone.type} zone ${zone.name} ended`,
    description: start
      ? `Within ${params.max_distance_meters} m of each other, both under ${params.max_speed_knots} kn, since ${iso(episode.since)} (${params.min_minutes} min or more).`
      : `Lasted ${duration} min from ${iso(episode.since)}; closest ${Math.round(episode.closest_m)} m.`,
    location: { ...where, zone: zone.name },
    requires_action: start && requiresActionAt(level),
    metadata: start ? metadata : { ...metadata, ended_at: iso(at_ms) },
  };
}
