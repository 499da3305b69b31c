import type { AlertRules, DwellTime } from '../../../schemas/maritime-rules.ts';
import type { EscalationAction, StoredZone, ZoneType } from '../../../schemas/zone.ts';

/**
 * The zone fields the rules read. Derived from the zone schema, never restated by hand; `alert_rules`
 * is the zone's rule set entry (issue 23), joined to the zone by the catalog because the zone step
 * applies it (entry, exit and dwell) where it applies the zone's own alert level.
 */
export type RuleZone = Pick<
  StoredZone,
  'id' | 'name' | 'type' | 'alert_level' | 'active' | 'schedule' | 'authorized_vessels' | 'buffer' | 'dwell'
> & { alert_rules?: AlertRules };

export interface EscalationStep {
  after_minutes: number;
  action: EscalationAction;
}

/** Site-wide dwell settings in the shape of the spec's `dwell_time` configuration structure. */
export interface DwellTimeConfig {
  enabled: boolean;
  /** Zone types missing here have no dwell alert unless the zone sets `dwell.threshold_minutes`. */
  thresholds: ReadonlyArray<{ zone_type: ZoneType; max_dwell_minutes: number }>;
  reset_window_minutes: number;
  /** Minutes past the dwell threshold (not past entry); see dwell-policy.ts. */
  escalation: readonly EscalationStep[];
}

/** Every setting of the zone rules, typed and documented in one place. */
export interface ZoneRulesConfig {
  /**
   * Hysteresis: a departure (from the zone, or from its buffer) is confirmed only after the vessel
   * has been reported outside for this many consecutive reports...
   */
  exit_confirm_reports: number;
  /** ...and for at least this many seconds of event time since the first report outside. */
  exit_confirm_seconds: number;
  /**
   * `expire` closes the stays of a vessel silent for this long (event time), with a zone_exit whose
   * reason is `signal_lost`.
   */
  silence_timeout_seconds: number;
  /**
   * Authorized vessels and zones outside their schedule raise no alert. When true their entries and
   * exits are still recorded as low-severity events with `requires_action: false` (audit trail);
   * when false they produce nothing.
   */
  record_unalerted_presence: boolean;
  dwell_time: DwellTimeConfig;
  /**
   * A partition of ais.positions whose next report comes this long (event time) after its previous
   * one saw the feed stop: one system event, and no vessel gaps for that time (rules/feed-silence.ts).
   */
  feed_silence_seconds: number;
}

/**
 * Defaults. Three reports and 60 s: AIS class A reports every 2 to 10 s under way, so an exit is
 * confirmed a minute after the vessel leaves; at anchor (one report per 3 min) it takes three
 * reports, which is what stops a vessel swinging on its anchor across an edge from flooding
 * entry/exit pairs. Thirty minutes of silence is ten missed reports even at anchor; shorter would
 * split the dwell of a vessel in patchy coverage into stays (the gaps would not count as dwell).
 */
export const DEFAULT_ZONE_RULES_CONFIG: ZoneRulesConfig = Object.freeze({
  exit_confirm_reports: 3,
  exit_confirm_seconds: 60,
  silence_timeout_seconds: 1800,
  record_unalerted_presence: true,
  /** Six partitions of a port's feed carry several reports a second each; five silent minutes is an outage. */
  feed_silence_seconds: 300,
  /** Spec "Dwell time": the values shown, used as defaults that every zone may override. */
  dwell_time: Object.freeze({
    enabled: true,
    thresholds: Object.freeze([
      { zone_type: 'exclusion', max_dwell_minutes: 0 },
      { zone_type: 'restricted', max_dwell_minutes: 15 },
      { zone_type: 'monitoring', max_dwell_minutes: 60 },
      { zone_type: 'anchorage', max_dwell_minutes: 1440 },
    ] as const),
    reset_window_minutes: 30,
    escalation: Object.freeze([
      { after_minutes: 15, action: 'notify_supervisor' },
      { after_minutes: 30, action: 'escalate_to_port_authority' },
      { after_minutes: 60, action: 'escalate_to_coast_guard' },
    ] as const),
  }),
});

/**
 * The config with the site-wide `dwell_time` stored through the rules API (spec "Dwell time" as
 * written), field by field over the built-in defaults; a zone's own `dwell` still overrides both.
 */
export function withSiteDwellTime(config: ZoneRulesConfig, stored: DwellTime | undefined): ZoneRulesConfig {
  if (stored === undefined) return config;
  const base = config.dwell_time;
  return {
    ...config,
    dwell_time: {
      enabled: stored.enabled,
      thresholds: stored.thresholds ?? base.thresholds,
      reset_window_minutes: stored.reset_window_minutes ?? base.reset_window_minutes,
      escalation: stored.escalation ?? base.escalation,
    },
  };
}
