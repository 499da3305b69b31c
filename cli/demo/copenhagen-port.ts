import type { ZoneCreate } from '../../schemas/zone.ts';

/**
 * The demo port: zones of all four types placed on the tracks of the real vessels in the Danish Maritime
 * Authority recording of Copenhagen / Øresund (test/fixtures/ais/real-nmea-dma-copenhagen-oresund.txt).
 * Dwell thresholds are shortened so dwell and escalation show within minutes of the time-compressed replay.
 */
export const DEMO_ZONES: ZoneCreate[] = [
  {
    name: 'Holmen naval base',
    type: 'exclusion',
    alert_level: 'critical',
    active: true,
    // The inner harbour the canal tour boats run through (PRINSESSEN PAA AERTE, TINSOLDATEN, SOMMERFUGLEN).
    geometry: { type: 'Polygon', coordinates: [[[12.598, 55.684], [12.606, 55.684], [12.606, 55.690], [12.598, 55.690], [12.598, 55.684]]] },
    buffer: { enabled: true, distance_meters: 150, alert_level: 'high', message: 'Vessel approaching the naval base exclusion zone' },
  },
  {
    name: 'Cruise terminal',
    type: 'restricted',
    alert_level: 'high',
    active: true,
    // CROWN OF SCANDINAVIA lies at the quay; PILOT MERKUR and SVITZER MARS wait nearby (authorized types).
    geometry: { type: 'Circle', center: [12.5975, 55.7023], radius_meters: 300 },
    buffer: { enabled: true, distance_meters: 300, alert_level: 'medium', message: 'Vessel near the cruise terminal' },
    // PILOT MERKUR transmits ship type 90-99 ("other"), so it is authorized by MMSI, not by type.
    authorized_vessels: [{ vessel_types: ['pilot', 'tug', 'port_authority'] }, { mmsi_list: [219001061] }],
    dwell: { threshold_minutes: 5, escalation: [
      { after_minutes: 5, action: 'notify_supervisor' },
      { after_minutes: 10, action: 'escalate_to_port_authority' },
      { after_minutes: 20, action: 'escalate_to_coast_guard' },
    ] },
  },
  {
    name: 'Northern approach channel',
    type: 'monitoring',
    alert_level: 'medium',
    active: true,
    geometry: { type: 'Corridor', centerline: [[12.6800, 55.6930], [12.6806, 55.7100]], width_meters: 300 },
    dwell: { threshold_minutes: 10 },
  },
  {
    name: 'Middelgrund anchorage',
    type: 'anchorage',
    alert_level: 'low',
    active: true,
    geometry: { type: 'MultiPolygon', coordinates: [
      [[[12.7240, 55.7000], [12.7280, 55.7000], [12.7280, 55.7050], [12.7240, 55.7050], [12.7240, 55.7000]]],
      [[[12.5980, 55.7180], [12.6045, 55.7180], [12.6045, 55.7225], [12.5980, 55.7225], [12.5980, 55.7180]]],
    ] },
    schedule: { days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], hours: '00:00-24:00', timezone: 'Europe/Copenhagen' },
    dwell: { threshold_minutes: 20 },
  },
];
