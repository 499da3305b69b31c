import type { SpeedRule } from '../../../schemas/maritime-rules.ts';
import type { RuleZone } from './config.ts';
import { advanceEpisode, type Verdict } from './episode.ts';
import { dropIfEmpty, slices, watchedZones, type VesselRule } from './rule-context.ts';
import { iso, round, vesselIntent, vesselLabel, type RuleIntent } from './rule-intent.ts';
import type { SpeedEpisode, VesselState } from './vessel-state.ts';

/** Knots back inside the limit before a report counts as clear (see episode.ts). */
export const SPEED_HYSTERESIS_KNOTS = 0.5;

/** Spec item 3: speed over ground against `max_speed_knots` / `min_speed_knots` while inside the zone. */
export function speedVerdict(rule: SpeedRule, sog: number | null): { verdict: Verdict; kind?: 'over' | 'under'; limit?: number } {
  if (sog === null) return { verdict: 'unknown' };
  const max = rule.max_speed_knots;
  const min = rule.min_speed_knots;
  if (max !== undefined && sog > max) return { verdict: 'violating', kind: 'over', limit: max };
  if (min !== undefined && sog < min) return { verdict: 'violating', kind: 'under', limit: min };
  const inBand = (max !== undefined && sog > max - SPEED_HYSTERESIS_KNOTS) || (min !== undefined && sog < min + SPEED_HYSTERESIS_KNOTS);
  return { verdict: inBand ? 'band' : 'clear' };
}

/**
 * speed_anomaly once per episode (at its confirmation), speed_anomaly_end when it ends with the peak and
 * duration. An episode also ends when the vessel leaves the zone or the rule is removed. A change of
 * direction (over to under) ends one episode and opens another.
 */
export const speedRule: VesselRule = (ctx, out) => {
  const { vessel, report } = ctx;
  const open = vessel.rules?.speed;
  const watched = watchedZones(ctx, 'speed_rules', false).filter(([, rule]) => rule.alert_on_violation !== false);
  if (open === undefined && watched.length === 0) return;
  const episodes = (slices(vessel).speed ??= {});
  const seen = new Set<string>();
  for (const [zone, rule] of watched) {
    seen.add(zone.id);
    const { verdict, kind, limit } = speedVerdict(rule, report.sog);
    let episode = episodes[zone.id];
    if (episode !== undefined && kind !== undefined && kind !== episode.kind) {
      end(out, vessel, zone, rule, episode, report.t, 'reversed');
      episode = undefined;
    }
    const worse = (kind ?? episode?.kind) === 'under' ? Math.min : Math.max;
    const step = advanceEpisode(episode, verdict, report.sog ?? 0, report.t, worse);
    if (step.episode === undefined) delete episodes[zone.id];
    else {
      const next = step.episode as SpeedEpisode;
      if (episode === undefined) Object.assign(next, { kind, limit });
      episodes[zone.id] = next;
      if (step.confirmed) out.push(anomaly(vessel, zone, rule, next, report.sog ?? 0, report.t));
    }
    if (step.ended !== undefined) end(out, vessel, zone, rule, step.ended as SpeedEpisode, report.t, 'back_within_limit');
  }
  for (const zone_id of Object.keys(episodes)) {
    if (seen.has(zone_id)) continue;
    const episode = episodes[zone_id] as SpeedEpisode;
    delete episodes[zone_id];
    const zone = ctx.zones.get(zone_id);
    const rule = ctx.ruleSets.get(zone_id)?.speed_rules;
    if (zone !== undefined && rule !== undefined) end(out, vessel, zone, rule, episode, report.t, 'left_zone');
  }
  dropIfEmpty(vessel, 'speed');
};

function anomaly(vessel: VesselState, zone: RuleZone, rule: SpeedRule, e: SpeedEpisode, sog: number, t: number): RuleIntent {
  const word = e.kind === 'over' ? 'above the maximum' : 'below the minimum';
  return vesselIntent(
    'speed_anomaly', 'medium', vessel, zone, t, rule.alert_level ?? 'medium',
    {
      title: `${vesselLabel(vessel)} at ${round(sog)} kn, ${word} of ${e.limit} kn in ${zone.type} zone ${zone.name}`,
      description: `Speed ${word} since ${iso(e.since)}; peak so far ${round(e.peak)} kn.`,
    },
    { speed_knots: round(sog), limit_knots: e.limit, limit_kind: e.kind === 'over' ? 'max' : 'min', peak_speed_knots: round(e.peak), episode_started_at: iso(e.since), duration_seconds: Math.round((t - e.since) / 1000) },
    e.since,
  );
}

function end(out: RuleIntent[], vessel: VesselState, zone: RuleZone, rule: SpeedRule, e: SpeedEpisode, t: number, reason: string): void {
  if (!e.fired) return;
  out.push(
    vesselIntent(
      'speed_anomaly_end', 'low', vessel, zone, t, rule.alert_level ?? 'medium',
      {
        title: `${vesselLabel(vessel)} speed episode ended in ${zone.type} zone ${zone.name}`,
        description: `From ${iso(e.since)} to ${iso(t)}; peak ${round(e.peak)} kn against a ${e.kind === 'over' ? 'maximum' : 'minimum'} of ${e.limit} kn.`,
      },
      { limit_knots: e.limit, limit_kind: e.kind === 'over' ? 'max' : 'min', peak_speed_knots: round(e.peak), episode_started_at: iso(e.since), duration_seconds: Math.round((t - e.since) / 1000), end_reason: reason },
      e.since,
    ),
  );
}
