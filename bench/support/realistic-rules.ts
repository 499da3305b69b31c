// The rule set the zone benchmarks store on their 1,000 zones (issue 12), shared by maritime-pipeline and
// pipeline so both measure the same work per position.
import type { MaritimeRules } from '../../schemas/maritime-rules.ts';

/**
 * A realistic rule set: every zone watches AIS integrity (loss after 10 min, jumps beyond 2 nm,
 * heading/COG mismatch), half have a 12 kn speed limit, a quarter deny tankers, a tenth cap occupancy at
 * 50 vessels on weekdays, and (with `encounters`) another tenth watch encounters (GFW's defaults).
 */
export function realisticRules(names: string[], { encounters }: { encounters: boolean }): MaritimeRules {
  return {
    ...(encounters ? { encounter_rules: names.filter((_, i) => i % 10 === 5).map((zone) => ({ zone, max_distance_meters: 500, max_speed_knots: 2, min_minutes: 120, alert_level: 'medium' as const })) } : {}),
    ais_rules: names.map((zone) => ({ zone, alert_on: [{ ais_loss_seconds: 600 }, { position_jump_nm: 2 }, { heading_speed_mismatch: true }], alert_level: 'high' as const })),
    speed_rules: names.filter((_, i) => i % 2 === 0).map((zone) => ({ zone, max_speed_knots: 12, alert_on_violation: true, alert_level: 'medium' as const })),
    vessel_type_rules: names.filter((_, i) => i % 4 === 0).map((zone) => ({ zone, denied_types: ['tanker'], alert_on_denied_entry: true, alert_level: 'high' as const })),
    time_rules: names.filter((_, i) => i % 10 === 0).map((zone) => ({ zone, schedules: [{ name: 'weekdays', days: ['mon' as const, 'tue' as const, 'wed' as const, 'thu' as const, 'fri' as const], max_vessels: 50, alert_level: 'medium' as const }] })),
  };
}

/** What `realisticRules` stores, in words, for benchmark reports. */
export function realisticRulesSummary(encounters: boolean): string {
  return `ais_rules on every zone, speed_rules on 1/2, vessel_type_rules on 1/4, time_rules on 1/10${encounters ? ', encounter_rules on 1/10' : ''}`;
}
