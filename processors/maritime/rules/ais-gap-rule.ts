import type { ZoneRuleSet } from '../../../schemas/maritime-rules.ts';
import type { RuleZone } from './config.ts';
import { slices, watchedZones, type RuleReport } from './rule-context.ts';
import { distanceNm, iso, round, vesselIntent, vesselLabel, type RuleIntent } from './rule-intent.ts';
import type { VesselState } from './vessel-state.ts';

/**
 * AIS loss (spec item 4, `ais_loss_seconds`) for vessels inside or near a zone that watches it.
 *
 * Silence is measured in event time on the clock of the vessel's own feed (the source of its last
 * report; feed-clock.ts, feed-silence.ts): while the vessel is silent, against the newest report time its
 * feed has carried on any partition (checked by the adapter's housekeeping); when it reports again,
 * against that report. Only the time the feed was carrying counts: a feed outage suppresses the part of a
 * silence it covers, and the part before it still counts. Each gap is the same event (same instant, same
 * key) whichever finds it, so where batches and housekeeping runs fall (a live feed, the same reports in
 * one catch-up batch, a replay) changes nothing. The vessel's own report, not the feed's clock, judges it
 * at its report: in a catch-up listing reports vessel by vessel, the clock would make every later vessel
 * look silent.
 *
 * `silentFrom` is where the silence is counted from so that it passes the limit at the right instant:
 * the vessel's last report, moved on by the feed's quiet stretches before the limit passes.
 */
export interface Watch {
  zone: RuleZone;
  loss_seconds: number;
  level: NonNullable<NonNullable<ZoneRuleSet['ais_rules']>['alert_level']>;
}

/** The strictest `ais_loss_seconds` among the zones the vessel is in or near. */
export function gapWatch(vessel: VesselState, zones: ReadonlyMap<string, RuleZone>, ruleSets: ReadonlyMap<string, ZoneRuleSet>): Watch | undefined {
  let best: Watch | undefined;
  for (const [zone, rule] of watchedZones({ vessel, zones, ruleSets }, 'ais_rules', true)) {
    for (const check of rule.alert_on) {
      if ('ais_loss_seconds' in check && (best === undefined || check.ais_loss_seconds < best.loss_seconds)) {
        best = { zone, loss_seconds: check.ais_loss_seconds, level: rule.alert_level ?? 'high' };
      }
    }
  }
  return best;
}

/** ais_gap for a vessel silent past its limit as of `now` (event time); nothing if already raised. */
export function detectSilence(vessel: VesselState, now: number, silentFrom: number, watch: Watch | undefined): RuleIntent | undefined {
  if (watch === undefined || vessel.rules?.gap !== undefined) return undefined;
  const lostAt = silentFrom + watch.loss_seconds * 1000;
  if (now <= lostAt) return undefined;
  slices(vessel).gap = { since: vessel.last_seen_at, zone_id: watch.zone.id, alerted_at: lostAt };
  return vesselIntent(
    'ais_gap', 'high', vessel, watch.zone, lostAt, watch.level,
    {
      title: `${vesselLabel(vessel)}: AIS signal lost near ${watch.zone.type} zone ${watch.zone.name}`,
      description: `No report since ${iso(vessel.last_seen_at)} (limit ${watch.loss_seconds} s) while other vessels keep reporting.`,
    },
    { last_seen_at: iso(vessel.last_seen_at), ais_loss_seconds: watch.loss_seconds, silent_from: iso(silentFrom) },
    vessel.last_seen_at,
  );
}

/**
 * At a vessel's report (before its state takes the report): the gap it ends, if any. Raises the
 * ais_gap first when housekeeping had not yet, then ais_gap_end with the gap's duration and the
 * distance covered meanwhile.
 */
export function gapOnReport(vessel: VesselState, report: Pick<RuleReport, 't' | 'lat' | 'lon'>, silentFrom: number, watch: Watch | undefined): RuleIntent[] {
  const out: RuleIntent[] = [];
  const raised = detectSilence(vessel, report.t, silentFrom, watch);
  if (raised !== undefined) out.push(raised);
  const gap = vessel.rules?.gap;
  if (gap === undefined) return out;
  delete vessel.rules?.gap;
  // Placed in the zone that watches the vessel now (usually the one that raised the gap).
  const zone = watch?.zone;
  const distance = distanceNm(vessel.lat, vessel.lon, report.lat, report.lon);
  const duration = Math.round((report.t - gap.since) / 1000);
  const end = vesselIntent(
    'ais_gap_end', 'low', vessel, zone, report.t, watch?.level ?? 'high',
    {
      title: `${vesselLabel(vessel)}: AIS signal back after ${duration} s`,
      description: `Silent from ${iso(gap.since)} to ${iso(report.t)}; ${round(distance, 2)} nm from its last position.`,
    },
    { gap_duration_seconds: duration, distance_nm: round(distance, 2), last_seen_at: iso(gap.since), position: { lat: report.lat, lng: report.lon }, implied_speed_knots: duration > 0 ? round(distance / (duration / 3600)) : null },
    gap.since,
  );
  end.location = { lat: report.lat, lng: report.lon, ...(zone === undefined ? {} : { zone: zone.name }) };
  out.push(end);
  return out;
}
