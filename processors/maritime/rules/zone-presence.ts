import { isVesselAuthorized } from './authorization.ts';
import type { RuleZone, ZoneRulesConfig } from './config.ts';
import { dwellPolicy, type DwellPolicy } from './dwell-policy.ts';
import { isScheduleInForce } from './schedule.ts';
import { visitDwellMs, type Fix, type Presence, type VesselState, type ZonePresence } from './vessel-state.ts';
import {
  approachIntent,
  AUTHORIZED,
  entryIntent,
  exitIntent,
  isAlerting,
  onDwellIntent,
  rungIntent,
  SCHEDULE_ACTIVE,
  type ZoneEventIntent,
} from './zone-event-intents.ts';

/**
 * The state machine of one (vessel, zone) pair, Traccar style: it loads and saves nothing. It
 * compares the confirmed presence (before) with what the latest report shows (after) and updates
 * the record in place; intents are appended to an accumulator that is only allocated when the
 * first intent appears, so the common "still inside, nothing due" report allocates nothing.
 *
 *   outside   --inside-->  inside (zone_entry; dwell rungs due at entry, e.g. exclusion)
 *   outside   --buffer-->  in_buffer (zone_approach)
 *   in_buffer --inside-->  inside (zone_entry)
 *   in_buffer --outside x N reports and M seconds--> outside (re-arms the approach alert)
 *   inside    --not inside x N reports and M seconds--> in_buffer | outside (zone_exit)
 *   inside    --inside--> inside (cancels an unconfirmed departure; fires dwell rungs when due)
 */
export type Intents = ZoneEventIntent[] | null;
type OnDwellRule = NonNullable<NonNullable<RuleZone['alert_rules']>['on_dwell']>;

/** Advance one record by the vessel's latest report (already applied to `vessel`). */
export function advanceZone(
  vessel: VesselState,
  p: ZonePresence,
  zone: RuleZone,
  observed: Presence,
  config: ZoneRulesConfig,
  intents: Intents,
): Intents {
  const policy = dwellPolicy(zone, config);
  const t = vessel.last_seen_at;
  if (p.presence !== 'inside' && p.exited_at !== null && t - p.exited_at > policy.reset_window_ms) endVisit(p);
  if (p.presence === 'inside') {
    if (observed === 'inside') {
      if (p.departing_since !== null) clearDeparture(p);
      return checkDwell(vessel, p, zone, policy, -1, intents);
    }
    if (!departureConfirmed(vessel, p, config, true)) return intents;
    const fix = fixOf(p.departure_fix, vessel);
    return closeStay(vessel, p, zone, p.departing_since ?? t, fix, 'left', observed, intents);
  }
  if (observed === 'inside') return enter(vessel, p, zone, policy, config, intents);
  if (p.presence === 'outside') return observed === 'in_buffer' ? approach(vessel, p, zone, intents) : intents;
  if (observed === 'in_buffer') {
    if (p.departing_since !== null) clearDeparture(p);
  } else if (departureConfirmed(vessel, p, config, false)) {
    p.presence = 'outside';
    clearDeparture(p);
  }
  return intents;
}

/**
 * A vessel silent for the silence timeout: an unconfirmed departure is taken as the exit (at its
 * first report outside); a vessel last seen inside exits with reason `signal_lost` at its last report.
 */
export function closeForSilence(vessel: VesselState, p: ZonePresence, zone: RuleZone, intents: Intents): Intents {
  if (p.presence === 'inside') {
    if (p.departing_since !== null) {
      return closeStay(vessel, p, zone, p.departing_since, fixOf(p.departure_fix, vessel), 'left', 'outside', intents);
    }
    return closeStay(vessel, p, zone, vessel.last_seen_at, vessel, 'signal_lost', 'outside', intents);
  }
  p.presence = 'outside';
  clearDeparture(p);
  return intents;
}

/**
 * The vessel's type became known, or changed, after its latest report was evaluated with `flags_before`
 * (the vessel's new facts are already applied): re-evaluate that report, at its own time.
 *   inside, now alerting:     the alert it would have had (zone_entry `alerting_started`; rungs count from here)
 *   inside, now authorized:   a low zone_entry `authorized` recording that its alert was not needed;
 *                             rungs wait, as for any authorized vessel
 *   in the buffer, now alerting: the pre-alert it would have had
 * Keys name the learned type, so they differ from the events evaluated at the same report.
 */
export function reauthorize(
  vessel: VesselState,
  p: ZonePresence,
  zone: RuleZone,
  flags_before: number,
  config: ZoneRulesConfig,
  intents: Intents,
): Intents {
  const t = vessel.last_seen_at;
  const flags = alertFlags(zone, vessel, t);
  if (flags === flags_before) return intents;
  if (p.presence === 'in_buffer') return isAlerting(flags) ? push(intents, approachIntent(zone, vessel, p, t, flags, true)) : intents;
  if (p.presence !== 'inside') return intents;
  if (isAlerting(flags)) return checkDwell(vessel, p, zone, dwellPolicy(zone, config), flags, intents, true);
  if (!isAlerting(flags_before) || !config.record_unalerted_presence) return intents;
  p.recorded = true;
  return push(intents, entryIntent(zone, vessel, p, t, flags, 'authorized', true));
}

/** Authorization and schedule at `at_ms`, as AUTHORIZED | SCHEDULE_ACTIVE bits. */
export function alertFlags(zone: RuleZone, vessel: VesselState, at_ms: number): number {
  return (
    (isVesselAuthorized(zone, vessel.mmsi, vessel.vessel_type) ? AUTHORIZED : 0) |
    (isScheduleInForce(zone.schedule, at_ms) ? SCHEDULE_ACTIVE : 0)
  );
}

function enter(
  vessel: VesselState,
  p: ZonePresence,
  zone: RuleZone,
  policy: DwellPolicy,
  config: ZoneRulesConfig,
  intents: Intents,
): Intents {
  const t = vessel.last_seen_at;
  // exited_at survives only within the reset window (advanceZone ended older visits): carry over.
  if (p.exited_at === null) {
    endVisit(p);
    p.visit_started_at = t;
  }
  p.presence = 'inside';
  p.entered_at = t;
  p.exited_at = null;
  clearDeparture(p);
  const flags = alertFlags(zone, vessel, t);
  if (isAlerting(flags)) {
    if (p.alert_from_ms === null) p.alert_from_ms = p.carried_ms;
    p.recorded = true;
    intents = push(intents, entryIntent(zone, vessel, p, t, flags, 'entered'));
  } else if (config.record_unalerted_presence) {
    p.recorded = true;
    intents = push(intents, entryIntent(zone, vessel, p, t, flags, 'entered'));
  } else {
    p.recorded = false;
  }
  return checkDwell(vessel, p, zone, policy, flags, intents);
}

/**
 * Dwell rules on an inside report. Rungs compare the visit's *alerting* dwell (dwell since the visit
 * began to alert) with the ladder, so a vessel that was inside before the schedule came into force
 * gets the same grace as one entering then. Rungs wait (they are not skipped) while the zone is out
 * of schedule or the vessel authorized, and several due at one report fire together, in order. The
 * zone's alert rule `on_dwell` is one more point on the same measure, fired once per visit in its
 * place among the rungs (before a rung at the same dwell).
 */
function checkDwell(
  vessel: VesselState,
  p: ZonePresence,
  zone: RuleZone,
  policy: DwellPolicy,
  known_flags: number,
  intents: Intents,
  learned = false,
): Intents {
  const t = vessel.last_seen_at;
  let flags = known_flags;
  if (p.alert_from_ms === null) {
    if (flags < 0) flags = alertFlags(zone, vessel, t);
    if (!isAlerting(flags)) return intents;
    p.alert_from_ms = visitDwellMs(p, t);
    p.recorded = true;
    intents = push(intents, entryIntent(zone, vessel, p, t, flags, 'alerting_started', learned));
  }
  const rungs = policy.rungs_ms;
  const next = rungs[p.rungs_fired] ?? Infinity;
  const on_dwell = p.on_dwell_fired ? undefined : zone.alert_rules?.on_dwell;
  const point = on_dwell === undefined ? Infinity : on_dwell.threshold_minutes * MINUTE_MS;
  const alert_dwell = visitDwellMs(p, t) - p.alert_from_ms;
  if (alert_dwell < next && alert_dwell < point) return intents;
  if (flags < 0) flags = alertFlags(zone, vessel, t);
  if (!isAlerting(flags)) return intents;
  for (let rung = p.rungs_fired; rung < rungs.length && alert_dwell >= (rungs[rung] ?? Infinity); rung++) {
    if (on_dwell !== undefined && !p.on_dwell_fired && point <= (rungs[rung] ?? Infinity)) intents = fireOnDwell(vessel, p, zone, on_dwell, flags, intents);
    intents = push(intents, rungIntent(zone, vessel, p, policy, rung, t, flags));
    p.rungs_fired = rung + 1;
  }
  if (on_dwell !== undefined && !p.on_dwell_fired && alert_dwell >= point) intents = fireOnDwell(vessel, p, zone, on_dwell, flags, intents);
  return intents;
}

const MINUTE_MS = 60_000;

function fireOnDwell(vessel: VesselState, p: ZonePresence, zone: RuleZone, rule: OnDwellRule, flags: number, intents: Intents): Intents {
  p.on_dwell_fired = true;
  return push(intents, onDwellIntent(zone, vessel, p, rule.threshold_minutes, rule.alert_level, vessel.last_seen_at, flags));
}

function approach(vessel: VesselState, p: ZonePresence, zone: RuleZone, intents: Intents): Intents {
  const t = vessel.last_seen_at;
  p.presence = 'in_buffer';
  clearDeparture(p);
  const flags = alertFlags(zone, vessel, t);
  return isAlerting(flags) ? push(intents, approachIntent(zone, vessel, p, t, flags)) : intents;
}

/** Ends the current stay at `exit_at`, adds it to the visit's dwell, and emits zone_exit if the entry was. */
function closeStay(
  vessel: VesselState,
  p: ZonePresence,
  zone: RuleZone,
  exit_at: number,
  fix: Fix,
  reason: 'left' | 'signal_lost',
  now_presence: Presence,
  intents: Intents,
): Intents {
  const stay_entered_at = p.entered_at ?? exit_at;
  p.carried_ms += Math.max(0, exit_at - stay_entered_at);
  p.entered_at = null;
  p.exited_at = exit_at;
  p.presence = now_presence === 'in_buffer' ? 'in_buffer' : 'outside';
  clearDeparture(p);
  if (!p.recorded) return intents;
  p.recorded = false;
  const flags = alertFlags(zone, vessel, exit_at);
  return push(intents, exitIntent(zone, vessel, p, stay_entered_at, exit_at, fix, reason, flags));
}

/** Hysteresis: true once the vessel has been away for N consecutive reports and M seconds. */
function departureConfirmed(vessel: VesselState, p: ZonePresence, config: ZoneRulesConfig, keep_fix: boolean): boolean {
  const t = vessel.last_seen_at;
  if (p.departing_since === null) {
    p.departing_since = t;
    p.departing_reports = 1;
    if (keep_fix) p.departure_fix = [vessel.lat, vessel.lon, vessel.sog, vessel.cog];
  } else {
    p.departing_reports += 1;
  }
  return p.departing_reports >= config.exit_confirm_reports && t - p.departing_since >= config.exit_confirm_seconds * 1000;
}

function clearDeparture(p: ZonePresence): void {
  p.departing_since = null;
  p.departing_reports = 0;
  p.departure_fix = null;
}

/** Forget the visit: the next entry starts a new one with fresh dwell and ladder. */
function endVisit(p: ZonePresence): void {
  p.visit_started_at = null;
  p.carried_ms = 0;
  p.exited_at = null;
  p.alert_from_ms = null;
  p.rungs_fired = 0;
  p.on_dwell_fired = false;
}

function fixOf(tuple: ZonePresence['departure_fix'], fallback: Fix): Fix {
  return tuple === null ? fallback : { lat: tuple[0], lon: tuple[1], sog: tuple[2], cog: tuple[3] };
}

function push(intents: Intents, intent: ZoneEventIntent): ZoneEventIntent[] {
  if (intents === null) return [intent];
  intents.push(intent);
  return intents;
}
