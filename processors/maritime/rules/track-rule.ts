import type { AisRule } from '../../../schemas/maritime-rules.ts';
import type { RuleZone } from './config.ts';
import { slices, watchedZones, type PreviousFix, type RuleReport, type VesselRule } from './rule-context.ts';
import { distanceNm, iso, round, vesselIntent, vesselLabel } from './rule-intent.ts';
import type { TimedFix } from './vessel-state.ts';

/**
 * Implied speed no vessel reaches, by the interval between two reports: tiers rather than one figure,
 * as open AIS cleaners do (60 kn over intervals up to 10 minutes, 100 kn beyond). A displacement under
 * MIN_JUMP_NM never counts (fix noise over a few seconds implies absurd speeds).
 */
export const IMPLIED_SPEED_TIERS: ReadonlyArray<{ up_to_seconds: number; knots: number }> = [
  { up_to_seconds: 600, knots: 60 },
  { up_to_seconds: Infinity, knots: 100 },
];
export const MIN_JUMP_NM = 0.5;
/** How far the vessel could have gone: its reported speed (at least 2 kn) with 25 % slack. */
const REACH_SLACK = 1.25;
const REACH_MIN_KNOTS = 2;
/** An identity episode (two transmitters) is forgotten after an hour without alternation. */
const TRACK_MEMORY_MS = 3_600_000;

export interface JumpFinding {
  distance_nm: number;
  interval_seconds: number;
  implied_speed_knots: number;
  /** Displacement beyond what the reported speed explains. */
  unexplained_nm: number;
  trigger: 'position_jump_nm' | 'implied_speed';
  tier_knots?: number;
}

/** Whether the move from `from` to `to` is a jump under `position_jump_nm` (undefined: only the tiers). */
export function findJump(from: PreviousFix, to: Pick<RuleReport, 't' | 'lat' | 'lon' | 'sog'>, position_jump_nm: number | undefined): JumpFinding | undefined {
  const interval_seconds = (to.t - from.t) / 1000;
  if (interval_seconds <= 0) return undefined;
  const distance_nm = distanceNm(from.lat, from.lon, to.lat, to.lon);
  if (distance_nm < MIN_JUMP_NM) return undefined;
  const hours = interval_seconds / 3600;
  const implied_speed_knots = distance_nm / hours;
  const reach = Math.max(from.sog ?? 0, to.sog ?? 0, REACH_MIN_KNOTS) * REACH_SLACK * hours;
  const unexplained_nm = Math.max(0, distance_nm - reach);
  const base = { distance_nm: round(distance_nm, 2), interval_seconds: round(interval_seconds, 0), implied_speed_knots: round(implied_speed_knots), unexplained_nm: round(unexplained_nm, 2) };
  if (position_jump_nm !== undefined && unexplained_nm > position_jump_nm) return { ...base, trigger: 'position_jump_nm' };
  const tier = IMPLIED_SPEED_TIERS.find((t) => interval_seconds <= t.up_to_seconds) as (typeof IMPLIED_SPEED_TIERS)[number];
  if (implied_speed_knots > tier.knots) return { ...base, trigger: 'implied_speed', tier_knots: tier.knots };
  return undefined;
}

export type LikelyCause = 'bad_fix' | 'second_transmitter' | 'spoofing';

/**
 * A heuristic, written into the event with its basis: a fix near 0°N 0°E (null island) or one the
 * transmitter itself flags as low accuracy is a bad fix; otherwise a large, well-formed displacement
 * is possible spoofing. A second transmitter shows itself by alternating (identity_conflict).
 */
export function likelyCause(report: Pick<RuleReport, 'lat' | 'lon' | 'position_accuracy'>): { cause: LikelyCause; basis: string } {
  if (Math.abs(report.lat) < 1 && Math.abs(report.lon) < 1) return { cause: 'bad_fix', basis: 'position near 0N 0E (null island)' };
  if (report.position_accuracy === false) return { cause: 'bad_fix', basis: 'transmitter reports low position accuracy' };
  return { cause: 'spoofing', basis: 'well-formed report far from where the vessel could be' };
}

function jumpSettings(ctx: Parameters<VesselRule>[0]): { zone: RuleZone; rule: AisRule; position_jump_nm: number | undefined } | undefined {
  for (const [zone, rule] of watchedZones(ctx, 'ais_rules', true)) {
    for (const check of rule.alert_on) if ('position_jump_nm' in check) return { zone, rule, position_jump_nm: check.position_jump_nm };
  }
  return undefined;
}

/**
 * position_jump on a move no vessel makes; identity_conflict when the MMSI then keeps alternating
 * between two places (back to the other side within what its speed explains, twice): two transmitters
 * on one MMSI. A single return after a jump was a bad fix and alerts nothing more. Active in and near
 * zones whose ais_rules give `position_jump_nm`.
 */
export const trackRule: VesselRule = (ctx, out) => {
  const { vessel, report, previous } = ctx;
  const track = vessel.rules?.track;
  if (track !== undefined && report.t - Math.max(track.first_jump_at, track.other[0]) > TRACK_MEMORY_MS) delete vessel.rules?.track;
  if (previous === undefined) return;
  const settings = jumpSettings(ctx);
  if (settings === undefined) return;
  const jump = findJump(previous, report, settings.position_jump_nm);
  if (jump === undefined) return;
  const { zone, rule } = settings;
  const level = rule.alert_level ?? 'high';
  const current = vessel.rules?.track;
  const here: TimedFix = [previous.t, previous.lat, previous.lon];
  if (current !== undefined && findJump({ t: current.other[0], lat: current.other[1], lon: current.other[2], sog: previous.sog }, report, settings.position_jump_nm) === undefined) {
    // Back on the other side, consistently with it: an alternation, not a new jump.
    current.alternations++;
    current.other = here;
    if (current.alternations >= 2 && !current.conflict_fired) {
      current.conflict_fired = true;
      out.push(
        vesselIntent(
          'identity_conflict', 'high', vessel, zone, report.t, level,
          {
            title: `${vesselLabel(vessel)} reported in two places no vessel could connect`,
            description: `Since ${iso(current.first_jump_at)} the MMSI alternates between two tracks ${jump.distance_nm} nm apart: likely a second transmitter using the same MMSI.`,
          },
          { ...jump, likely_cause: 'second_transmitter', alternations: current.alternations, other_position: { lat: previous.lat, lng: previous.lon }, first_jump_at: iso(current.first_jump_at) },
          current.first_jump_at,
        ),
      );
    }
    return;
  }
  slices(vessel).track = { other: here, first_jump_at: report.t, alternations: 0, conflict_fired: false };
  const { cause, basis } = likelyCause(report);
  out.push(
    vesselIntent(
      'position_jump', 'high', vessel, zone, report.t, level,
      {
        title: `${vesselLabel(vessel)} jumped ${jump.distance_nm} nm in ${jump.interval_seconds} s near ${zone.type} zone ${zone.name}`,
        description: `Implied speed ${jump.implied_speed_knots} kn from ${previous.lat.toFixed(5)}, ${previous.lon.toFixed(5)} at ${iso(previous.t)}; likely cause: ${cause} (${basis}).`,
      },
      { ...jump, likely_cause: cause, cause_basis: basis, previous_position: { lat: previous.lat, lng: previous.lon }, previous_reported_at: iso(previous.t), position_jump_nm: settings.position_jump_nm ?? null },
    ),
  );
};
