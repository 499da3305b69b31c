import { severityOfAlertLevel } from './event-severity.ts';
import type { VesselRule } from './rule-context.ts';
import { distanceNm, iso, round, vesselIntent, vesselLabel } from './rule-intent.ts';

/** Segments shorter than this are not sampled: at 10 kn every 10 s a vessel moves 51 m, and fixes are denser than small zones. */
const MIN_SEGMENT_NM = 0.1;
/** Sample spacing along the segment (≈ 25 m) and the most samples taken (long gaps are sampled coarser). */
const SPACING_NM = 0.0135;
const MAX_SAMPLES = 64;

/**
 * Beyond the spec (Tile38's `cross`): when neither of two consecutive reports is inside a zone with
 * `crossing_rules` but the straight line between them passes through it, the vessel crossed it unseen:
 * one `zone_crossing` with the inferred entry and exit instants (interpolated at constant speed along
 * the segment). Points are sampled along the segment and located with the zone index, so a zone
 * narrower than the sample spacing (about 25 m, coarser over long gaps) can still be missed.
 */
export const crossingRule: VesselRule = (ctx, out) => {
  const { vessel, report, previous, ruleSets, zones, insideAt } = ctx;
  if (previous === undefined || insideAt === undefined) return;
  const length = distanceNm(previous.lat, previous.lon, report.lat, report.lon);
  if (length < MIN_SEGMENT_NM) return;
  const ends = new Set([...insideAt(previous.lat, previous.lon), ...insideAt(report.lat, report.lon)]);
  const samples = Math.min(MAX_SAMPLES, Math.ceil(length / SPACING_NM));
  const seen = new Map<string, [first: number, last: number]>();
  for (let i = 1; i < samples; i++) {
    const f = i / samples;
    for (const zone_id of insideAt(previous.lat + (report.lat - previous.lat) * f, previous.lon + (report.lon - previous.lon) * f)) {
      if (ends.has(zone_id) || ruleSets.get(zone_id)?.crossing_rules === undefined) continue;
      const span = seen.get(zone_id);
      if (span === undefined) seen.set(zone_id, [f, f]);
      else span[1] = f;
    }
  }
  for (const [zone_id, [first, last]] of seen) {
    const zone = zones.get(zone_id);
    const rule = ruleSets.get(zone_id)?.crossing_rules;
    if (zone === undefined || rule === undefined || !zone.active) continue;
    const step = 1 / samples;
    const enteredAt = Math.round(previous.t + (report.t - previous.t) * Math.max(0, first - step / 2));
    const exitedAt = Math.round(previous.t + (report.t - previous.t) * Math.min(1, last + step / 2));
    const level = rule.alert_level ?? 'medium';
    out.push(
      vesselIntent(
        'zone_crossing', severityOfAlertLevel(level), vessel, zone, report.t, level,
        {
          title: `${vesselLabel(vessel)} crossed ${zone.type} zone ${zone.name} between two reports`,
          description: `Inferred from reports at ${iso(previous.t)} and ${iso(report.t)}, ${round(length, 2)} nm apart, neither inside: in the zone about ${iso(enteredAt)} to ${iso(exitedAt)}.`,
        },
        { inferred: true, inferred_entry_at: iso(enteredAt), inferred_exit_at: iso(exitedAt), segment_nm: round(length, 2), previous_reported_at: iso(previous.t), source: "Tile38 'cross' detection" },
        `${iso(previous.t)}-${iso(report.t)}`,
      ),
    );
  }
};
