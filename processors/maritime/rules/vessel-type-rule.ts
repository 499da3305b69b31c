import type { VesselTypeRule } from '../../../schemas/maritime-rules.ts';
import { isVesselAuthorized } from './authorization.ts';
import { dropIfEmpty, slices, watchedZones, type VesselRule } from './rule-context.ts';
import { severityOfAlertLevel } from './event-severity.ts';
import { iso, vesselIntent, vesselLabel } from './rule-intent.ts';

export type TypeVerdict = 'denied' | 'not_allowed' | 'unknown_type' | 'ok';

/**
 * Spec item 5. A type in `denied_types` is denied; with `allowed_types`, a known type not on the list
 * is not allowed. A vessel whose type is unknown (no static data yet, or AIS "unknown"/"other"):
 * never matches `denied_types` (we do not guess), but where `allowed_types` is set it is not on the
 * list, so it alerts as `unknown_type`: an allow-list zone fails towards alerting. Types compare
 * case-insensitively.
 */
export function typeVerdict(rule: VesselTypeRule, category: string | null): TypeVerdict {
  const type = category === null || category === 'unknown' || category === 'other' ? null : category.toLowerCase();
  if (type !== null && rule.denied_types?.some((t) => t.toLowerCase() === type)) return 'denied';
  if (rule.allowed_types === undefined || rule.allowed_types.length === 0) return 'ok';
  if (type === null) return 'unknown_type';
  return rule.allowed_types.some((t) => t.toLowerCase() === type) ? 'ok' : 'not_allowed';
}

/**
 * vessel_type_violation once per stay, at the first report of the stay that finds it (at entry, or
 * later when static data reveals the type), at the rule's alert level. An MMSI listed in the zone's
 * `authorized_vessels` is exempt. Nothing when `alert_on_denied_entry` is false.
 */
export const vesselTypeRule: VesselRule = (ctx, out) => {
  const { vessel, report } = ctx;
  const judged = vessel.rules?.type;
  const watched = watchedZones(ctx, 'vessel_type_rules', false);
  if (judged === undefined && watched.length === 0) return;
  const stays = (slices(vessel).type ??= {});
  const current = new Set<string>();
  for (const [zone, rule] of watched) {
    const entered = vessel.zones.find((p) => p.zone_id === zone.id)?.entered_at ?? null;
    if (entered === null) continue;
    current.add(zone.id);
    if (stays[zone.id] === entered || rule.alert_on_denied_entry === false) continue;
    const verdict = typeVerdict(rule, vessel.vessel_type);
    if (verdict === 'ok' || isVesselAuthorized({ ...zone, authorized_vessels: zone.authorized_vessels?.filter((e) => 'mmsi_list' in e) }, vessel.mmsi, null)) continue;
    stays[zone.id] = entered;
    const level = rule.alert_level ?? 'high';
    const why = verdict === 'denied' ? 'a denied type' : verdict === 'not_allowed' ? 'not an allowed type' : 'of unknown type, and only listed types are allowed';
    out.push(
      vesselIntent(
        'vessel_type_violation', severityOfAlertLevel(level), vessel, zone, report.t, level,
        {
          title: `${vesselLabel(vessel)} (${vessel.vessel_type ?? 'type unknown'}) in ${zone.type} zone ${zone.name}: ${why}`,
          description: `Inside since ${iso(entered)}; allowed ${JSON.stringify(rule.allowed_types ?? [])}, denied ${JSON.stringify(rule.denied_types ?? [])}.`,
        },
        { verdict, entered_at: iso(entered), allowed_types: rule.allowed_types ?? [], denied_types: rule.denied_types ?? [] },
        entered,
      ),
    );
  }
  for (const zone_id of Object.keys(stays)) if (!current.has(zone_id)) delete stays[zone_id];
  dropIfEmpty(vessel, 'type');
};
