import type { EventType } from '../../../events/event-types.ts';
import type { SecurityEvent } from '../../../schemas/event.ts';
import type { AlertLevel } from '../../../schemas/zone.ts';
import type { RuleZone } from './config.ts';
import { requiresActionAt } from './event-severity.ts';
import type { VesselState } from './vessel-state.ts';

export type RuleEventType = Extract<
  EventType,
  'speed_anomaly' | 'speed_anomaly_end' | 'ais_gap' | 'ais_gap_end' | 'position_jump' | 'identity_conflict' | 'heading_mismatch' | 'vessel_type_violation' | 'occupancy_exceeded' | 'system_health_change' | 'risk_score_change' | 'loitering' | 'zone_crossing' | 'encounter' | 'encounter_end'
>;

/** What a behaviour rule found, before the adapter adds the id (hash of `key`), module and device. */
export type RuleIntent = Omit<SecurityEvent, 'id' | 'source_module' | 'source_device' | 'assigned_to' | 'incident_id' | 'type'> & {
  key: string;
  type: RuleEventType;
};

/**
 * A maritime rule finding about one vessel. The spec fixes the severity of speed_anomaly (medium) and
 * ais_gap (high); the rule's `alert_level` then travels in metadata and decides `requires_action`
 * (spec "Alert levels"), as it does for zone events.
 */
export function vesselIntent(
  type: RuleEventType,
  severity: SecurityEvent['severity'],
  vessel: VesselState,
  zone: RuleZone | undefined,
  at_ms: number,
  level: AlertLevel,
  text: { title: string; description: string },
  metadata: Record<string, unknown>,
  keyTail: string | number = at_ms,
): RuleIntent {
  return {
    key: `${type}:${zone?.id ?? '-'}:${vessel.mmsi}:${typeof keyTail === 'number' ? iso(keyTail) : keyTail}`,
    type,
    category: 'maritime',
    severity,
    timestamp: iso(at_ms),
    title: text.title,
    description: text.description,
    location: zone === undefined ? { lat: vessel.lat, lng: vessel.lon } : { lat: vessel.lat, lng: vessel.lon, zone: zone.name },
    requires_action: type === 'risk_score_change' ? severity === 'high' || severity === 'critical' : requiresActionAt(level) && severity !== 'low',
    metadata: {
      mmsi: vessel.mmsi,
      vessel_name: vessel.vessel_name,
      vessel_type: vessel.vessel_type,
      ...(zone === undefined ? {} : { zone_id: zone.id, zone_name: zone.name, zone_type: zone.type }),
      alert_level: level,
      ...metadata,
    },
  };
}

export function vesselLabel(vessel: VesselState): string {
  return vessel.vessel_name === null ? `Vessel MMSI ${vessel.mmsi}` : `${vessel.vessel_name} (MMSI ${vessel.mmsi})`;
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

const EARTH_RADIUS_NM = 3440.065;
const RAD = Math.PI / 180;

/** Great-circle distance in nautical miles (haversine on the mean sphere: 0.3 % is plenty for these rules). */
export function distanceNm(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const dLat = (lat2 - lat1) * RAD;
  const dLon = (lon2 - lon1) * RAD;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_NM * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** Smallest angle between two directions, 0..180. */
export function angleBetween(a: number, b: number): number {
  const d = Math.abs(a - b) % 360;
  return d > 180 ? 360 - d : d;
}

export function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
