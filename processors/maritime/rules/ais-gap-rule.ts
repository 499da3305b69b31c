import type { ZoneRuleSet } from '../../../schemas/maritime-rules.ts';
import type { RuleZone } from './config.ts';
import { slices, watchedZones, type RuleReport } from './rule-context.ts';
import { distanceNm, iso, round, vesselIntent, vesselLabel, type RuleIntent } from './rule-intent.ts';
import type { VesselState } from './vessel-state.ts';

/**
 * AIS loss (spec item 4, `ais_loss_seconds`) for vessels inside or near a zone that watches it.
 *
 * Silence is measured in event time: while the vessel is silent, against its Kafka partition's
 * watermark (the newest report time of the partition's other vessels), checked by the adapter's
 * housekeeping and, as of the moment the feed stopped, at the report that ends a feed outage; when it
 * reports again, against that report. Each gap is the same event (same instant, same key) whichever
 * finds it. On a partition whose reports arrive in event-time order the three agree, so where batches
 * and housekeeping runs fall (a live feed, or the same reports in one catch-up batch) changes nothing.
 * The vessel's own report, not the watermark, judges it at its report: in a catch-up listing reports
 * vessel by vessel, the watermark would make every later vessel look silent.
 *
 * `silentFrom` is where the silence is counted from: the vessel's last report, or, when its partition
 * itself fell silent after that report (a feed outage, see feed-silence.ts), the moment the feed came
 * back: a feed outage is one system event, not a gap for every vessel.
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
