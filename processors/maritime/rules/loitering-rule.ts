import { severityOfAlertLevel } from './event-severity.ts';
import { dropIfEmpty, slices, watchedZones, type VesselRule } from './rule-context.ts';
import { iso, vesselIntent, vesselLabel } from './rule-intent.ts';

/** Global Fishing Watch's loitering definition: under 2 kn for at least 2 hours (their defaults here). */
export const LOITERING_SOURCE = 'Global Fishing Watch loitering events: speed < 2 kn for >= 2 h';
/** Reports at or above the speed that end a slow spell (one fast report is noise). */
const END_REPORTS = 2;

/**
 * Beyond the spec: `loitering` once per spell when a vessel inside the zone has stayed under
 * `max_speed_knots` for `min_minutes` (event time). GFW finds these in daily batches; here they are found
 * at the report that completes the duration. A report without speed changes nothing; leaving the zone
 * ends the spell.
 */
export const loiteringRule: VesselRule = (ctx, out) => {
  const { vessel, report } = ctx;
  const open = vessel.rules?.loiter;
  const watched = watchedZones(ctx, 'loitering_rules', false);
  if (open === undefined && watched.length === 0) return;
  const spells = (slices(vessel).loiter ??= {});
  const seen = new Set<string>();
  for (const [zone, rule] of watched) {
    seen.add(zone.id);
    if (report.sog === null) continue;
    const max = rule.max_speed_knots ?? 2;
    const minutes = rule.min_minutes ?? 120;
    const spell = spells[zone.id];
    if (report.sog >= max) {
      if (spell !== undefined && ++spell.fast_reports >= END_REPORTS) delete spells[zone.id];
      continue;
    }
    if (spell === undefined) {
      spells[zone.id] = { since: report.t, fired: false, fast_reports: 0 };
      continue;
    }
    if (spell.fast_reports !== 0) spell.fast_reports = 0;
    if (spell.fired || report.t - spell.since < minutes * 60_000) continue;
    spell.fired = true;
    const level = rule.alert_level ?? 'medium';
    out.push(
      vesselIntent(
        'loitering', severityOfAlertLevel(level), vessel, zone, report.t, level,
        {
          title: `${vesselLabel(vessel)} loitering in ${zone.type} zone ${zone.name}`,
          description: `Under ${max} kn since ${iso(spell.since)} (${minutes} min or more).`,
        },
        { loitering_since: iso(spell.since), max_speed_knots: max, min_minutes: minutes, duration_minutes: Math.floor((report.t - spell.since) / 60_000), source: LOITERING_SOURCE },
        spell.since,
      ),
    );
  }
  for (const zone_id of Object.keys(spells)) if (!seen.has(zone_id)) delete spells[zone_id];
  dropIfEmpty(vessel, 'loiter');
};
