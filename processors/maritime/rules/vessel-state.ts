/**
 * Per-vessel zone state: plain JSON data (numbers, strings, booleans, null, arrays) so the adapter
 * can checkpoint it with JSON.stringify and restore it with JSON.parse. Times are epoch
 * milliseconds of event time (the reports' own times), never the wall clock.
 */

/** Where the vessel is, as confirmed by the hysteresis (not necessarily the latest report). */
export type Presence = 'inside' | 'in_buffer' | 'outside';

/** [lat, lon, speed over ground (kn) | null, course over ground (deg) | null] */
export type FixTuple = [number, number, number | null, number | null];

/**
 * One (vessel, zone) pair. A record exists while the vessel is inside the zone or its buffer, or
 * while its dwell can still carry over (within the reset window after an exit).
 *
 * Terms: a *stay* runs from an entry to a confirmed exit; a *visit* (dwell chain) is one or more
 * stays joined by re-entries within the reset window. Dwell = `carried_ms` + the current stay.
 */
export interface ZonePresence {
  zone_id: string;
  presence: Presence;
  /** First inside report of the current stay; null unless inside. */
  entered_at: number | null;
  /** First entry of the visit; carry-over keeps it. Visit-scoped event keys use it. */
  visit_started_at: number | null;
  /** Dwell of the visit's earlier stays. */
  carried_ms: number;
  /** Confirmed exit instant of the last stay (the first report outside); the reset window runs from it. */
  exited_at: number | null;
  /** First report of a departure not yet confirmed (from the zone when inside, from the buffer when in_buffer). */
  departing_since: number | null;
  departing_reports: number;
  /** Where the departure was first seen: the exit event's place. */
  departure_fix: FixTuple | null;
  /** Visit dwell at which the visit began to alert (entry, or later when the schedule came into force); null: not yet. */
  alert_from_ms: number | null;
  /** How many rungs of the dwell ladder this visit has fired: 0 none, 1 threshold, 1 + k escalations. */
  rungs_fired: number;
  /** The zone's alert rule `on_dwell` point fired this visit (issue 23); once per visit, like a rung. */
  on_dwell_fired: boolean;
  /** The current stay's entry was emitted, so its exit will be too. */
  recorded: boolean;
}

export interface VesselState {
  mmsi: number;
  /** Event time of the newest report applied; older or equal reports are ignored. */
  last_seen_at: number;
  lat: number;
  lon: number;
  sog: number | null;
  cog: number | null;
  /** Last known static data (kept so `expire` and the dwell endpoint can name the vessel). */
  vessel_name: string | null;
  vessel_type: string | null;
  zones: ZonePresence[];
  /**
   * Each behaviour rule's own slice (Traccar's per-rule state beside its pure update function); a rule
   * deletes its key when it has nothing to remember, so most vessels carry `{}`. Optional so rows
   * written before issue 12 still read.
   */
  rules?: RuleSlices;
}

/** An open violation episode (speed, heading): see rules/episode.ts for the hysteresis. */
export interface Episode {
  since: number;
  reports: number;
  /** The episode's alert was emitted (confirmed). */
  fired: boolean;
  clear_since: number | null;
  clear_reports: number;
  /** Largest (over a maximum) or smallest (under a minimum) value seen; the angle for heading. */
  peak: number;
}

export interface SpeedEpisode extends Episode {
  kind: 'over' | 'under';
  limit: number;
}

/** [event time ms, lat, lon] */
export type TimedFix = [number, number, number];

export interface RuleSlices {
  /** speed-rule.ts: by zone id. */
  speed?: Record<string, SpeedEpisode>;
  /** heading-rule.ts. */
  heading?: Episode;
  /** track-rule.ts: after a position jump, the fix on the other side, for the identity check. */
  track?: { other: TimedFix; first_jump_at: number; alternations: number; conflict_fired: boolean };
  /** ais-gap-rule.ts: an ais_gap raised while the vessel is still silent. */
  gap?: { since: number; zone_id: string; alerted_at: number };
  /** vessel-type-rule.ts: by zone id, the stay (entered_at) already judged. */
  type?: Record<string, number>;
  /** loitering-rule.ts: by zone id, since when the vessel has been slow there, and whether it was reported. */
  loiter?: Record<string, { since: number; fired: boolean; fast_reports: number }>;
  /** encounter-rule.ts: zone ids where the vessel's latest slow fix is in the shared encounter table. */
  encounter?: string[];
  /** risk-score.ts: the score at `at` (event time) and the score last announced (decayed with it). */
  risk?: { score: number; at: number; announced: number };
}

/** Whether a state holds anything a restart must continue (a zone record or a rule slice): only those are stored. */
export function isDurable(state: VesselState): boolean {
  if (state.zones.length > 0) return true;
  const rules = state.rules;
  if (rules === undefined) return false;
  for (const _ in rules) return true;
  return false;
}

/** A position with speed and course, as the events report it. VesselState is one (its latest fix). */
export interface Fix {
  lat: number;
  lon: number;
  sog: number | null;
  cog: number | null;
}

export function newVesselState(mmsi: number): VesselState {
  return {
    mmsi,
    last_seen_at: 0,
    lat: 0,
    lon: 0,
    sog: null,
    cog: null,
    vessel_name: null,
    vessel_type: null,
    zones: [],
  };
}

export function newZonePresence(zone_id: string): ZonePresence {
  return {
    zone_id,
    presence: 'outside',
    entered_at: null,
    visit_started_at: null,
    carried_ms: 0,
    exited_at: null,
    departing_since: null,
    departing_reports: 0,
    departure_fix: null,
    alert_from_ms: null,
    rungs_fired: 0,
    on_dwell_fired: false,
    recorded: false,
  };
}

/** Dwell of the visit at `at_ms`: carried stays plus the current stay, if any. */
export function visitDwellMs(p: ZonePresence, at_ms: number): number {
  return p.entered_at === null ? p.carried_ms : p.carried_ms + Math.max(0, at_ms - p.entered_at);
}

/** Spec "Dwell response": `alert_status`. `escalated` (a rung past the threshold fired) is ours. */
export type AlertStatus = 'none' | 'active' | 'escalated';

export function alertStatusOf(p: ZonePresence): AlertStatus {
  return p.rungs_fired === 0 ? 'none' : p.rungs_fired === 1 ? 'active' : 'escalated';
}
