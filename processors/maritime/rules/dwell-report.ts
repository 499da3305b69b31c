import type { DwellResponse } from '../../../schemas/dwell.ts';
import { isVesselAuthorized } from './authorization.ts';
import type { RuleZone } from './config.ts';
import { alertStatusOf, visitDwellMs, type VesselState } from './vessel-state.ts';
import { wholeMinutes } from './zone-event-intents.ts';

type DwellVessel = DwellResponse['vessels'][number];

/**
 * The dwell endpoint's answer for one zone: every vessel whose confirmed presence is inside (a
 * vessel whose departure is not yet confirmed still counts), longest dwell first, then by MMSI.
 * `as_of_ms` is the time the dwell is measured to; a stay that began after it counts as zero (carried dwell still shows).
 */
export function dwellResponse(zone: RuleZone, states: Iterable<VesselState>, as_of_ms: number): DwellResponse {
  const vessels: DwellVessel[] = [];
  for (const vessel of states) {
    for (const p of vessel.zones) {
      if (p.zone_id !== zone.id || p.presence !== 'inside' || p.entered_at === null) continue;
      vessels.push({
        mmsi: vessel.mmsi,
        vessel_name: vessel.vessel_name ?? '',
        entered_at: new Date(p.entered_at).toISOString(),
        dwell_minutes: wholeMinutes(Math.max(0, visitDwellMs(p, Math.max(as_of_ms, p.entered_at)))),
        authorized: isVesselAuthorized(zone, vessel.mmsi, vessel.vessel_type),
        alert_status: alertStatusOf(p),
      });
    }
  }
  vessels.sort((a, b) => b.dwell_minutes - a.dwell_minutes || a.mmsi - b.mmsi);
  return { zone_id: zone.id, zone_name: zone.name, vessels };
}
