import { advanceEpisode, type Verdict } from './episode.ts';
import { slices, watchedZones, type RuleReport, type VesselRule } from './rule-context.ts';
import { angleBetween, iso, round, vesselIntent, vesselLabel } from './rule-intent.ts';

/**
 * AMSA's drift rule: a vessel making way (0.25 to 20 kn) whose heading differs from its course over
 * ground by at least 45 degrees. Below 0.25 kn COG is noise; above 20 kn no hull crabs that far. Clear
 * below 35 degrees (10 degrees of hysteresis, episode.ts for the rest).
 */
export const HEADING_MISMATCH = { min_knots: 0.25, max_knots: 20, min_degrees: 45, clear_below_degrees: 35 } as const;

export function headingVerdict(report: Pick<RuleReport, 'sog' | 'cog' | 'heading'>): { verdict: Verdict; difference: number } {
  const { sog, cog, heading } = report;
  if (sog === null || cog === null || heading === null) return { verdict: 'unknown', difference: 0 };
  if (sog < HEADING_MISMATCH.min_knots || sog > HEADING_MISMATCH.max_knots) return { verdict: 'unknown', difference: 0 };
  const difference = angleBetween(heading, cog);
  if (difference >= HEADING_MISMATCH.min_degrees) return { verdict: 'violating', difference };
  return { verdict: difference < HEADING_MISMATCH.clear_below_degrees ? 'clear' : 'band', difference };
}

/** heading_mismatch once per episode, in or near a zone whose ais_rules ask for `heading_speed_mismatch`. */
export const headingRule: VesselRule = (ctx, out) => {
  const { vessel, report } = ctx;
  const watched = watchedZones(ctx, 'ais_rules', true).filter(([, rule]) => rule.alert_on.some((c) => 'heading_speed_mismatch' in c && c.heading_speed_mismatch));
  if (watched.length === 0) {
    if (vessel.rules?.heading !== undefined) delete vessel.rules.heading;
    return;
  }
  const [zone, rule] = watched[0] as (typeof watched)[number];
  const { verdict, difference } = headingVerdict(report);
  const step = advanceEpisode(vessel.rules?.heading, verdict, difference, report.t, Math.max);
  if (step.episode === undefined) delete vessel.rules?.heading;
  else slices(vessel).heading = step.episode;
  if (!step.confirmed || step.episode === undefined) return;
  out.push(
    vesselIntent(
      'heading_mismatch', 'medium', vessel, zone, report.t, rule.alert_level ?? 'high',
      {
        title: `${vesselLabel(vessel)} heading ${report.heading}° but course ${report.cog}° near ${zone.type} zone ${zone.name}`,
        description: `Heading differs from course over ground by ${round(difference)}° at ${round(report.sog ?? 0)} kn since ${iso(step.episode.since)} (AMSA drift rule: 0.25-20 kn, 45° or more): drifting, towed, or a misreporting transmitter.`,
      },
      { heading: report.heading, course: report.cog, speed_knots: report.sog, difference_degrees: round(difference), rule_source: 'AMSA drift detection: 0.25-20 kn, heading/COG >= 45 degrees' },
      step.episode.since,
    ),
  );
};
