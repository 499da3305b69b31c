import type { EscalationStep, RuleZone, ZoneRulesConfig } from './config.ts';

/**
 * The dwell rules in force for one zone (spec "Dwell time", "Dwell behaviour"): the zone's `dwell`
 * override field by field, else the site's `dwell_time` configuration, whose defaults are the values
 * the spec shows (exclusion 0, restricted 15, monitoring 60, anchorage 1440 minutes; reset window
 * 30 minutes; escalation 15/30/60 minutes).
 *
 * Escalation minutes count from the dwell threshold, not from entry: "15 minutes" means fifteen
 * minutes past the limit. Counted from entry, an anchorage (limit 1440) would call the coast guard
 * after an hour of lawful anchoring, long before its own limit, and a restricted zone (limit 15)
 * would notify the supervisor at the very moment of the first alert. Counted from the threshold
 * the ladder always follows the alert it escalates; for an exclusion zone (limit 0) both readings
 * agree.
 */
export interface DwellPolicy {
  /** null: the zone raises no dwell alert (dwell is still tracked for the dwell endpoint). */
  threshold_minutes: number | null;
  reset_window_minutes: number;
  /** Sorted by `after_minutes`. */
  escalation: readonly EscalationStep[];
  /**
   * The ladder as alerting dwell in milliseconds: `[threshold, threshold + escalation[0], ...]`;
   * empty when there is no threshold. A visit fires its rungs in this order, each once.
   */
  rungs_ms: readonly number[];
  reset_window_ms: number;
}

export function dwellPolicy(zone: RuleZone, config: ZoneRulesConfig): DwellPolicy {
  const cached = policies.get(zone);
  if (cached !== undefined && cached.config === config) return cached.policy;
  const policy = resolvePolicy(zone, config);
  policies.set(zone, { config, policy });
  return policy;
}

/** Zones are refreshed as new objects, so caching by identity never serves a stale policy. */
const policies = new WeakMap<RuleZone, { config: ZoneRulesConfig; policy: DwellPolicy }>();

const MINUTE_MS = 60_000;

function resolvePolicy(zone: RuleZone, config: ZoneRulesConfig): DwellPolicy {
  const site = config.dwell_time;
  const override = zone.dwell ?? {};
  const enabled = override.enabled ?? site.enabled;
  const site_threshold = site.thresholds.find((entry) => entry.zone_type === zone.type)?.max_dwell_minutes;
  const threshold_minutes = enabled ? (override.threshold_minutes ?? site_threshold ?? null) : null;
  const reset_window_minutes = override.reset_window_minutes ?? site.reset_window_minutes;
  const escalation = [...(override.escalation ?? site.escalation)].sort((a, b) => a.after_minutes - b.after_minutes);
  const rungs_ms =
    threshold_minutes === null
      ? []
      : [threshold_minutes * MINUTE_MS, ...escalation.map((step) => (threshold_minutes + step.after_minutes) * MINUTE_MS)];
  return {
    threshold_minutes,
    reset_window_minutes,
    escalation,
    rungs_ms,
    reset_window_ms: reset_window_minutes * MINUTE_MS,
  };
}
