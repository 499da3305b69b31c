import type { RuleZone, ZoneRulesConfig } from './config.ts';
import { dwellPolicy } from './dwell-policy.ts';
import { newVesselState, newZonePresence, type Presence, type VesselState, type ZonePresence } from './vessel-state.ts';
import type { ZoneEventIntent } from './zone-event-intents.ts';
import { advanceZone, alertFlags, closeForSilence, reauthorize, type Intents } from './zone-presence.ts';

/**
 * One AIS position for the zone rules: the report plus what the zone index found for it.
 * `reported_at` is the report's own time in epoch ms (event time).
 */
export interface ZoneObservation {
  mmsi: number;
  reported_at: number;
  lat: number;
  lon: number;
  /** Knots / degrees; null or absent when the report had none. */
  sog?: number | null;
  cog?: number | null;
  /** Static data known for the vessel; `category` is matched against `authorized_vessels[].vessel_types`. */
  vessel?: { name?: string | null; category?: string | null } | null;
  /** Zone ids whose area covers the position. */
  inside: readonly string[];
  /** Zone ids whose buffer (but not area) covers the position. */
  inBuffer: readonly string[];
}

export interface StepResult {
  /** The state given (updated in place), or a new one for a vessel seen for the first time. */
  state: VesselState;
  /** In order of event time within each zone. Shared and frozen when empty: do not push into it. */
  intents: readonly ZoneEventIntent[];
  /** The report was not newer than the vessel's last report and was ignored (count it, drop it). */
  late: boolean;
}

const NO_INTENTS: readonly ZoneEventIntent[] = Object.freeze([]);

/**
 * Apply one report to a vessel's zone state and say which events follow.
 *
 * `step` owns the state it is given: it updates it in place and returns it, so the hot path copies
 * nothing (callers that need the previous value, such as a test, clone it first). It reads only its
 * arguments: no clock, no I/O, so a replay of the same reports from the same state gives the same
 * intents with the same keys.
 *
 * - A report not newer than `last_seen_at` (late, out of order, or a duplicate from a second
 *   receiver) changes nothing and fires nothing: timers never move backwards, nothing fires twice.
 * - A report after a silence of `silence_timeout_seconds` first closes the stays the silence left
 *   open, exactly as `expire` would have, so the outcome does not depend on when `expire` ran.
 * - Zones missing from `zones` (deleted) or inactive are dropped from the state without events.
 */
export function step(
  state: VesselState | undefined,
  observation: ZoneObservation,
  zones: ReadonlyMap<string, RuleZone>,
  config: ZoneRulesConfig,
): StepResult {
  const t = observation.reported_at;
  if (state !== undefined && t <= state.last_seen_at) return { state, intents: NO_INTENTS, late: true };
  const vessel = state ?? newVesselState(observation.mmsi);
  let intents: Intents = null;
  if (state !== undefined && vessel.zones.length > 0 && t - vessel.last_seen_at >= config.silence_timeout_seconds * 1000) {
    intents = closeSilentStays(vessel, zones, intents);
  }
  applyReport(vessel, observation);
  intents = advanceKnownZones(vessel, observation, zones, config, intents);
  intents = openZones(vessel, observation, observation.inside, zones, config, intents);
  intents = openZones(vessel, observation, observation.inBuffer, zones, config, intents);
  return { state: vessel, intents: intents ?? NO_INTENTS, late: false };
}

/**
 * Close the stays of a vessel not heard from for `silence_timeout_seconds` of event time, and
 * forget what no longer matters. `now_ms` is event time too: the adapter passes its partition's
 * watermark (the newest `reported_at` it has processed), never the wall clock.
 *
 * Returns `state: undefined` when nothing about the vessel is worth keeping (silent, and no dwell
 * left to carry over): the adapter then deletes it. A vessel still within a reset window is kept so
 * its dwell can carry over if it comes back.
 */
export function expire(
  state: VesselState,
  now_ms: number,
  zones: ReadonlyMap<string, RuleZone>,
  config: ZoneRulesConfig,
): { state: VesselState | undefined; intents: readonly ZoneEventIntent[] } {
  if (now_ms - state.last_seen_at < config.silence_timeout_seconds * 1000) return { state, intents: NO_INTENTS };
  const intents = closeSilentStays(state, zones, null);
  state.zones = state.zones.filter((p) => {
    const zone = zones.get(p.zone_id);
    if (zone === undefined || !zone.active || p.exited_at === null) return false;
    return now_ms - p.exited_at <= dwellPolicy(zone, config).reset_window_ms;
  });
  return { state: state.zones.length === 0 ? undefined : state, intents: intents ?? NO_INTENTS };
}

/** Static data known for a vessel (the vessel directory's entry). */
export type VesselFacts = NonNullable<ZoneObservation['vessel']>;

/**
 * Static data learned for a vessel after its latest report was evaluated: the name and type are kept, and
 * a type that differs from the one that report was evaluated with re-evaluates the vessel's authorization
 * in every zone it is in or near, at that report's time (see `reauthorize`). Pure, like `step`: the same
 * state and facts give the same intents with the same keys, whether the adapter applies them as soon as
 * the directory learns them or at the vessel's next report.
 *
 * `changed` is false when the facts add nothing (the state is then untouched).
 */
export function learnVessel(
  state: VesselState,
  facts: VesselFacts,
  zones: ReadonlyMap<string, RuleZone>,
  config: ZoneRulesConfig,
): { changed: boolean; intents: readonly ZoneEventIntent[] } {
  const name = facts.name || state.vessel_name;
  const type = facts.category || state.vessel_type;
  if (name === state.vessel_name && type === state.vessel_type) return { changed: false, intents: NO_INTENTS };
  const typeChanged = type !== state.vessel_type;
  const before = typeChanged ? state.zones.map((p) => flagsIn(zones.get(p.zone_id), state)) : [];
  state.vessel_name = name;
  state.vessel_type = type;
  let intents: Intents = null;
  if (typeChanged) {
    state.zones.forEach((p, i) => {
      const zone = zones.get(p.zone_id);
      if (zone !== undefined && zone.active) intents = reauthorize(state, p, zone, before[i] as number, config, intents);
    });
  }
  return { changed: true, intents: intents ?? NO_INTENTS };
}

function flagsIn(zone: RuleZone | undefined, vessel: VesselState): number {
  return zone === undefined ? 0 : alertFlags(zone, vessel, vessel.last_seen_at);
}

function closeSilentStays(vessel: VesselState, zones: ReadonlyMap<string, RuleZone>, intents: Intents): Intents {
  for (const p of vessel.zones) {
    const zone = zones.get(p.zone_id);
    if (zone !== undefined && zone.active) intents = closeForSilence(vessel, p, zone, intents);
  }
  return intents;
}

function applyReport(vessel: VesselState, observation: ZoneObservation): void {
  vessel.last_seen_at = observation.reported_at;
  vessel.lat = observation.lat;
  vessel.lon = observation.lon;
  vessel.sog = observation.sog ?? null;
  vessel.cog = observation.cog ?? null;
  const facts = observation.vessel;
  if (facts !== undefined && facts !== null) {
    if (facts.name) vessel.vessel_name = facts.name;
    if (facts.category) vessel.vessel_type = facts.category;
  }
}

/** Advance every zone the vessel already has a record for; drop records with nothing left to keep. */
function advanceKnownZones(
  vessel: VesselState,
  observation: ZoneObservation,
  zones: ReadonlyMap<string, RuleZone>,
  config: ZoneRulesConfig,
  intents: Intents,
): Intents {
  const list = vessel.zones;
  let kept = 0;
  for (let i = 0; i < list.length; i++) {
    const p = list[i] as ZonePresence;
    const zone = zones.get(p.zone_id);
    if (zone === undefined || !zone.active) continue;
    intents = advanceZone(vessel, p, zone, observed(observation, p.zone_id, zone), config, intents);
    if (worthKeeping(p)) list[kept++] = p;
  }
  if (kept !== list.length) list.length = kept;
  return intents;
}

/** Open records for zones the report is in (or near) that the vessel has no record for yet. */
function openZones(
  vessel: VesselState,
  observation: ZoneObservation,
  zone_ids: readonly string[],
  zones: ReadonlyMap<string, RuleZone>,
  config: ZoneRulesConfig,
  intents: Intents,
): Intents {
  for (let i = 0; i < zone_ids.length; i++) {
    const zone_id = zone_ids[i] as string;
    if (hasRecord(vessel, zone_id)) continue;
    const zone = zones.get(zone_id);
    if (zone === undefined || !zone.active) continue;
    const now = observed(observation, zone_id, zone);
    if (now === 'outside') continue;
    const p = newZonePresence(zone_id);
    intents = advanceZone(vessel, p, zone, now, config, intents);
    vessel.zones.push(p);
  }
  return intents;
}

/** What this report shows for one zone. A buffer that is absent or disabled counts as outside. */
function observed(observation: ZoneObservation, zone_id: string, zone: RuleZone): Presence {
  if (observation.inside.includes(zone_id)) return 'inside';
  if (zone.buffer !== undefined && zone.buffer.enabled !== false && observation.inBuffer.includes(zone_id)) return 'in_buffer';
  return 'outside';
}

function worthKeeping(p: ZonePresence): boolean {
  return p.presence !== 'outside' || p.exited_at !== null;
}

function hasRecord(vessel: VesselState, zone_id: string): boolean {
  const list = vessel.zones;
  for (let i = 0; i < list.length; i++) if ((list[i] as ZonePresence).zone_id === zone_id) return true;
  return false;
}
