// The synthetic events of POST /v1/webhooks/{webhook_id}/test (issue 21, item 2). A test send is how
// people check their receiver, so each sample has the shape a real event of its type has in this
// service: a location (lat, lng, and zone where real ones carry one) for the types that have one, the
// metadata fields their producers write, a title and description of the same kind. Gate and decision
// events, and system_health_change, carry the empty location their real ones carry (docs/gate.md
// "Gate transactions"). Every sample is still marked: `metadata.test` true, a title starting "Test event:",
// `source_module` webhooks.test, a random id. Pure but for that id.
import { randomBytes } from 'node:crypto';
import { EVENT_TYPES, type EventType } from '../../events/event-types.ts';
import type { EventSeverity, SecurityEvent } from '../../schemas/event.ts';

interface Sample {
  /** For the types whose severity varies: the one real events with this metadata get. */
  severity?: EventSeverity;
  device: string;
  title: string;
  description: string;
  location: SecurityEvent['location'];
  metadata: Record<string, unknown>;
  requiresAction: boolean;
}

/** Minutes before the test send, as the ISO 8601 UTC instants real events hold. */
type Ago = (minutes: number) => string;

// One place and one vessel for every maritime sample; a perimeter sector and a drone nearby.
const ZONE = { zone_id: 'zone_00000000000000000000000000000000', zone_name: 'Test zone', zone_type: 'restricted' } as const;
const AT = { lat: 55.6921, lng: 12.6102 };
const IN_ZONE = { ...AT, zone: ZONE.zone_name };
const VESSEL = { mmsi: 219000001, vessel_name: 'PSS TEST VESSEL', vessel_type: 'cargo' } as const;
const AIS = 'ais-receiver';
const FENCE = { ...AT, zone: 'Test fence sector' };
const DRONE = { drone_id: 'drone-test', drone_mission_id: 'msn_test' } as const;

// Gate: the fields every transaction event carries, and those of an override (processors/gate/gate-events.ts).
const LANE = 'GATE-TEST/L1';
const TRANSACTION = { transaction_id: 'gtx_000000000000000000000000', reading_id: 'test-reading-1', gate: 'GATE-TEST', lane: 'L1', container_id: 'CSQU3054383', vehicle_plate: 'TEST123' };
const OVERRIDE = { transaction_id: TRANSACTION.transaction_id, gate: 'GATE-TEST', lane: 'L1', operator_id: 'operator-test', previous_decision: 'manual_review', new_decision: 'rejected', gate_action: 'lock' };
const DECISION = (status: string, decision: string, risk: number, rule: string, holds: string[]) => ({ ...TRANSACTION, status, decision, risk_score: risk, rule, hold_reasons: holds });

/** zone_* and dwell_* events: processors/maritime/rules/zone-event-intents.ts baseMetadata. */
const zoneMetadata = (ago: Ago, extra: Record<string, unknown>) => ({
  ...VESSEL, ...ZONE, alert_level: 'high', speed: 4.2, course: 87, dwell_minutes: 35, authorized: false, schedule_active: true,
  alerting: true, alert_status: 'none', visit_started_at: ago(35), entered_at: ago(35), ...extra,
});
/** Behaviour-rule events: processors/maritime/rules/rule-intent.ts vesselIntent. */
const ruleMetadata = (level: string, extra: Record<string, unknown>) => ({ ...VESSEL, ...ZONE, alert_level: level, ...extra });
const maritime = (title: string, description: string, metadata: Record<string, unknown>, requiresAction: boolean, severity?: EventSeverity): Sample => ({
  title, description, metadata, requiresAction, severity, device: AIS, location: IN_ZONE,
});
const gate = (title: string, description: string, metadata: Record<string, unknown>, requiresAction: boolean): Sample => ({
  title, description, metadata, requiresAction, device: LANE, location: {},
});
const vessel = `${VESSEL.vessel_name} (MMSI ${VESSEL.mmsi})`;
/** incident_* events: incidents/incident-events.ts, for an incident opened by a zone_entry. */
const INCIDENT = { incident_id: 'inc_00000000000000000000000000000000', key: `vessel:${VESSEL.mmsi}`, reason: `vessel MMSI ${VESSEL.mmsi} (metadata.mmsi)`, event_count: 2 };
const incident = (severity: EventSeverity, title: string, description: string, metadata: Record<string, unknown>, requiresAction: boolean): Sample => ({
  severity, title, description, metadata: { ...INCIDENT, ...metadata }, requiresAction, device: INCIDENT.incident_id, location: IN_ZONE,
});
const JUMP = { distance_nm: 12.4, interval_seconds: 60, implied_speed_knots: 744, unexplained_nm: 12.3, trigger: 'implied_speed', tier_knots: 100 };

const SAMPLES: Record<EventType, (ago: Ago) => Sample> = {
  gate_transaction_created: () => gate(`Gate transaction at ${LANE}: flagged`, 'CSQU3054383 on TEST123; risk score 30, decision manual_review',
    { ...TRANSACTION, status: 'flagged', decision: 'manual_review', risk_score: 30, confidence: 0.97 }, true),
  ocr_mismatch: () => gate(`Container id differs from expected at ${LANE}`, 'container CSQU3054383 read, MSCU1234565 booked',
    { ...TRANSACTION, reason: 'container_mismatch', expected_container_id: 'MSCU1234565', confidence: 0.97 }, true),
  seal_violation: () => gate(`Seal broken at ${LANE}`, 'seal SL-000001 reported broken',
    { ...TRANSACTION, violation: 'broken', seal_number: 'SL-000001', seal_status: 'broken', confidence: 0.93 }, true),
  damage_detected: () => gate(`Container damage at ${LANE}: medium`, 'medium dent on left_side',
    { ...TRANSACTION, worst_severity: 'medium', regions: 1, confidence: 0.88 }, false),
  gate_override: () => gate('Operator operator-test overrode gtx_000000000000000000000000: rejected', 'Test override reason',
    { ...OVERRIDE, reason: 'Test override reason', notes: 'Test notes' }, false),
  gate_locked: () => gate(`Gate ${LANE} locked by operator-test`, 'Test override reason', OVERRIDE, true),
  auto_approved: () => gate(`Truck approved at ${LANE}`, 'CSQU3054383 on TEST123: risk_score 0 < manual review threshold 30',
    DECISION('approved', 'auto_approved', 0, 'risk_score 0 < manual review threshold 30', []), false),
  manual_review: () => gate(`Truck held at ${LANE} for review`, 'CSQU3054383 on TEST123: risk_score 60 >= manual review threshold 30 and < 70; held for seal_broken',
    DECISION('held', 'manual_review', 60, 'risk_score 60 >= manual review threshold 30 and < 70; held for seal_broken', ['seal_broken']), true),
  auto_rejected: () => gate(`Truck rejected at ${LANE}`, 'CSQU3054383 on TEST123: risk_score 100 >= reject threshold 70',
    DECISION('rejected', 'auto_rejected', 100, 'risk_score 100 >= reject threshold 70', ['seal_broken', 'container_mismatch']), true),

  motion_detected: () => ({ device: 'cam-test', title: 'Motion in Test fence sector', description: 'Person detected by cam-test', location: FENCE,
    metadata: { camera_id: 'cam-test', object_class: 'person', confidence: 0.87 }, requiresAction: true }),
  perimeter_breach: () => ({ device: 'fence-test', title: 'Perimeter breach in Test fence sector', description: 'Barrier breached; person seen by cam-test', location: FENCE,
    metadata: { camera_id: 'cam-test', sensor_id: 'fence-test', object_class: 'person', confidence: 0.91, drone_dispatched: false }, requiresAction: true }),
  fence_tamper: () => ({ device: 'fence-test', title: 'Fence sensor triggered in Test fence sector', description: 'Vibration pattern of cutting', location: FENCE,
    metadata: { sensor_id: 'fence-test', confidence: 0.8 }, requiresAction: true }),
  camera_offline: (ago) => ({ device: 'cam-test', title: 'Camera cam-test offline', description: 'No frame for 60 s', location: FENCE,
    metadata: { camera_id: 'cam-test', last_frame_at: ago(1) }, requiresAction: true }),

  zone_entry: (ago) => maritime(`${vessel} entered restricted zone Test zone`, `Entered at ${ago(35)}.`, zoneMetadata(ago, { reason: 'entered' }), true, 'high'),
  zone_exit: (ago) => maritime(`${vessel} left restricted zone Test zone`, `In the zone from ${ago(35)} to ${ago(0)}; visit dwell 35 min.`,
    zoneMetadata(ago, { exit_reason: 'left' }), false, 'low'),
  zone_approach: (ago) => maritime(`${vessel} approaching restricted zone Test zone`, 'Within 500 m of the zone.',
    zoneMetadata(ago, { alert_level: 'medium', visit_started_at: null, entered_at: null, dwell_minutes: 0, buffer_distance_meters: 500 }), true, 'medium'),
  ais_gap: (ago) => maritime(`${vessel}: AIS signal lost near restricted zone Test zone`, `No report since ${ago(10)} (limit 600 s) while other vessels keep reporting.`,
    ruleMetadata('high', { last_seen_at: ago(10), ais_loss_seconds: 600, silent_from: ago(10) }), true),
  ais_gap_end: (ago) => maritime(`${vessel}: AIS signal back after 900 s`, `Silent from ${ago(15)} to ${ago(0)}; 1.2 nm from its last position.`,
    ruleMetadata('high', { gap_duration_seconds: 900, distance_nm: 1.2, last_seen_at: ago(15), position: AT, implied_speed_knots: 4.8 }), false),
  risk_score_change: (ago) => ({ ...maritime(`${vessel} risk score 55 (was 20)`, `Raised by zone_entry, ais_gap at ${ago(0)}; findings decay with a half-life of 6 h.`,
    { ...VESSEL, alert_level: 'info', risk_score: 55, previous_risk_score: 20, factors: ['zone_entry', 'ais_gap'], score_exact: 55.2 }, true, 'high'), location: AT }),
  dwell_threshold: (ago) => maritime(`${vessel} exceeded the 30 min dwell limit in restricted zone Test zone`, `Dwell 35 min since ${ago(35)} (limit 30 min).`,
    zoneMetadata(ago, { alert_status: 'active', threshold_minutes: 30, crossed_at: ago(5) }), true),
  dwell_escalation: (ago) => maritime(`${vessel} 30 min past the dwell limit in restricted zone Test zone: notify_supervisor`,
    `Dwell 60 min since ${ago(60)} (limit 30 min, escalation after 30 min more).`,
    zoneMetadata(ago, { dwell_minutes: 60, visit_started_at: ago(60), entered_at: ago(60), alert_status: 'escalated', threshold_minutes: 30, crossed_at: ago(0), action: 'notify_supervisor', after_minutes: 30 }), true, 'high'),
  speed_anomaly: (ago) => maritime(`${vessel} at 14.5 kn, over of 10 kn in restricted zone Test zone`, `Speed over since ${ago(3)}; peak so far 14.5 kn.`,
    ruleMetadata('medium', { speed_knots: 14.5, limit_knots: 10, limit_kind: 'max', peak_speed_knots: 14.5, episode_started_at: ago(3), duration_seconds: 180 }), true),
  speed_anomaly_end: (ago) => maritime(`${vessel} speed episode ended in restricted zone Test zone`, `From ${ago(10)} to ${ago(0)}; peak 14.5 kn against a maximum of 10 kn.`,
    ruleMetadata('medium', { limit_knots: 10, limit_kind: 'max', peak_speed_knots: 14.5, episode_started_at: ago(10), duration_seconds: 600, end_reason: 'back_within_limit' }), false),
  position_jump: (ago) => maritime(`${vessel} jumped 12.4 nm in 60 s near restricted zone Test zone`, 'Implied speed 744 kn; likely cause: spoofing (well-formed report far from where the vessel could be).',
    ruleMetadata('high', { ...JUMP, likely_cause: 'spoofing', cause_basis: 'well-formed report far from where the vessel could be', previous_position: { lat: 55.9, lng: 12.6 }, previous_reported_at: ago(1), position_jump_nm: null }), true),
  identity_conflict: (ago) => maritime(`${vessel} reported in two places no vessel could connect`, `Since ${ago(20)} the MMSI alternates between two tracks 12.4 nm apart: likely a second transmitter using the same MMSI.`,
    ruleMetadata('high', { ...JUMP, likely_cause: 'second_transmitter', alternations: 3, other_position: { lat: 55.9, lng: 12.6 }, first_jump_at: ago(20) }), true),
  heading_mismatch: (ago) => maritime(`${vessel} heading 180° but course 90° near restricted zone Test zone`, `Heading differs from course over ground by 90° at 3 kn since ${ago(5)}.`,
    ruleMetadata('high', { heading: 180, course: 90, speed_knots: 3, difference_degrees: 90, rule_source: 'AMSA drift detection: 0.25-20 kn, heading/COG >= 45 degrees' }), true),
  vessel_type_violation: (ago) => maritime(`${vessel} (cargo) in restricted zone Test zone: a denied type`, `Inside since ${ago(5)}; allowed [], denied ["cargo"].`,
    ruleMetadata('high', { verdict: 'denied', entered_at: ago(5), allowed_types: [], denied_types: ['cargo'] }), true, 'high'),
  loitering: (ago) => maritime(`${vessel} loitering in restricted zone Test zone`, `Under 2 kn since ${ago(130)} (120 min or more).`,
    ruleMetadata('medium', { loitering_since: ago(130), max_speed_knots: 2, min_minutes: 120, duration_minutes: 130, source: 'Global Fishing Watch loitering events: speed < 2 kn for >= 2 h' }), true, 'medium'),
  zone_crossing: (ago) => maritime(`${vessel} crossed restricted zone Test zone between two reports`, `Inferred from reports at ${ago(6)} and ${ago(0)}, neither inside.`,
    ruleMetadata('high', { inferred: true, inferred_entry_at: ago(4), inferred_exit_at: ago(2), segment_nm: 1.5, previous_reported_at: ago(6), source: "Tile38 'cross' detection" }), true, 'high'),
  encounter: (ago) => maritime(`Encounter of MMSI ${VESSEL.mmsi} and MMSI 219000002 in restricted zone Test zone`, `Within 500 m of each other, both under 2 kn, since ${ago(125)} (120 min or more).`,
    { mmsi: VESSEL.mmsi, other_mmsi: 219000002, ...ZONE, alert_level: 'high', encounter_since: ago(125), duration_minutes: 125, closest_distance_meters: 80, max_distance_meters: 500, max_speed_knots: 2, min_minutes: 120,
      source: 'Global Fishing Watch encounter events: two vessels within 500 m, both < 2 kn, for >= 2 h' }, true, 'high'),
  encounter_end: (ago) => maritime(`Encounter of MMSI ${VESSEL.mmsi} and MMSI 219000002 in restricted zone Test zone ended`, `Lasted 140 min from ${ago(145)}; closest 80 m.`,
    { mmsi: VESSEL.mmsi, other_mmsi: 219000002, ...ZONE, alert_level: 'high', encounter_since: ago(145), duration_minutes: 140, closest_distance_meters: 80, max_distance_meters: 500, max_speed_knots: 2, min_minutes: 120,
      source: 'Global Fishing Watch encounter events: two vessels within 500 m, both < 2 kn, for >= 2 h', ended_at: ago(0) }, false),
  occupancy_exceeded: () => maritime('4 vessels in restricted zone Test zone, above the 3 allowed (night)', 'Schedule "night" (mon, tue 22:00-06:00) allows 3 vessels.',
    { ...ZONE, schedule: 'night', max_vessels: 3, occupancy: 4, alert_level: 'medium' }, true, 'medium'),

  mission_launched: () => ({ device: DRONE.drone_id, title: 'Drone mission msn_test launched', description: 'Dispatched to Test fence sector', location: AT,
    metadata: { ...DRONE, trigger_event_id: null }, requiresAction: false }),
  mission_completed: () => ({ device: DRONE.drone_id, title: 'Drone mission msn_test completed', description: 'Returned to base', location: AT,
    metadata: { ...DRONE, duration_seconds: 900 }, requiresAction: false }),
  evidence_captured: () => ({ device: DRONE.drone_id, title: 'Photo captured by drone-test', description: 'Evidence for mission msn_test', location: AT,
    metadata: { ...DRONE, media_type: 'photo' }, requiresAction: false }),
  drone_low_battery: () => ({ device: DRONE.drone_id, title: 'Battery of drone-test below 20 percent', description: 'Returning to base', location: AT,
    metadata: { ...DRONE, battery_percent: 18 }, requiresAction: true }),
  drone_lost_link: (ago) => ({ device: DRONE.drone_id, title: 'Link to drone-test lost', description: `No telemetry since ${ago(1)}`, location: AT,
    metadata: { ...DRONE, last_contact_at: ago(1) }, requiresAction: true }),
  mission_aborted: () => ({ device: DRONE.drone_id, title: 'Drone mission msn_test aborted', description: 'Wind above limit', location: AT,
    metadata: { ...DRONE, reason: 'weather' }, requiresAction: true }),

  incident_created: () => incident('high', 'Incident opened: PSS TEST VESSEL entered restricted zone Test zone', `Grouped by vessel MMSI ${VESSEL.mmsi} (metadata.mmsi).`,
    { status: 'open', escalation_step: 0, opening_event_id: 'evt_00000000000000000000000000000000', mmsi: VESSEL.mmsi, zone: ZONE.zone_name, gate_id: null, container_id: null, plate: null }, true),
  incident_acknowledged: () => incident('high', 'Incident acknowledged by operator-test: PSS TEST VESSEL entered restricted zone Test zone', 'Escalation stopped at step 1.',
    { status: 'acknowledged', escalation_step: 1, acknowledged_by: 'operator-test' }, false),
  incident_escalated: (ago) => incident('high', 'Incident not acknowledged, escalated to step 1: PSS TEST VESSEL entered restricted zone Test zone',
    `Open since ${ago(10)}; nobody acknowledged it within the high acknowledgement timeout.`, { status: 'open', escalation_step: 1, next_escalation_at: ago(-10) }, true),
  incident_resolved: () => incident('high', 'Incident resolved: PSS TEST VESSEL entered restricted zone Test zone', 'Resolved by operator-test: vessel escorted out',
    { status: 'resolved', escalation_step: 1, resolved_by: 'operator-test', resolution_reason: 'vessel escorted out', merged_into: null }, false),
  // The shape of the admin's alert about a failing webhook (alerts.ts), the one a webhook owner gets.
  system_health_change: () => ({ severity: 'high', device: 'wh_test', title: 'Webhook "Test webhook" is failing: a delivery failed all 8 attempts',
    description: 'Delivery dlv_test, attempt 8.', location: {},
    metadata: { component: 'webhook', webhook_id: 'wh_test', delivery_id: 'dlv_test', status: 'failing', reason: 'failing' }, requiresAction: true }),
};

/** Whether `type` is one a test send can be asked for (every type of the table). */
export function isTestableType(type: string): type is EventType {
  return Object.hasOwn(SAMPLES, type);
}

/** A synthetic event of `type` at `now`, shaped like a real one, marked as a test. */
export function testEvent(type: EventType, now: number): SecurityEvent {
  const rule = EVENT_TYPES[type];
  const sample = SAMPLES[type]((minutes) => new Date(now - minutes * 60_000).toISOString());
  const severity: EventSeverity = rule.severity === 'varies' ? (sample.severity ?? 'medium') : rule.severity;
  return {
    id: `evt_${randomBytes(16).toString('hex')}`,
    type,
    timestamp: new Date(now).toISOString(),
    category: rule.category,
    severity,
    source_module: 'webhooks.test',
    source_device: sample.device,
    title: `Test event: ${sample.title}`,
    description: `${sample.description} (A synthetic event sent by POST /v1/webhooks/{webhook_id}/test; nothing happened.)`,
    location: sample.location,
    metadata: { ...sample.metadata, test: true },
    requires_action: sample.requiresAction,
    assigned_to: '',
    incident_id: null,
  };
}
