import type { EventCategory, EventSeverity } from '../schemas/event.ts';

/**
 * A type's category, and its severity: fixed, or `varies` when the producer decides it by the rule
 * written beside the type (docs/events-and-delivery.md "Security events": the rules in one list).
 */
interface EventTypeRule {
  category: EventCategory;
  severity: EventSeverity | 'varies';
}

/**
 * Every event type the service emits: the spec's table ("Event categories and types"), the severities
 * it leaves blank (system types) and the decision types it does not list, decided here, plus the
 * maritime types our zone rules add (zone_approach, dwell_escalation). A module adding a type adds it here.
 */
export const EVENT_TYPES = {
  gate_transaction_created: { category: 'gate', severity: 'low' },
  ocr_mismatch: { category: 'gate', severity: 'medium' },
  seal_violation: { category: 'gate', severity: 'high' },
  damage_detected: { category: 'gate', severity: 'medium' },
  gate_override: { category: 'gate', severity: 'medium' },
  gate_locked: { category: 'gate', severity: 'high' },

  motion_detected: { category: 'perimeter', severity: 'medium' },
  perimeter_breach: { category: 'perimeter', severity: 'high' },
  fence_tamper: { category: 'perimeter', severity: 'high' },
  camera_offline: { category: 'perimeter', severity: 'medium' },

  /** The zone's alert level (`info` as low); low for presence that raises no alert (authorized, off schedule). */
  zone_entry: { category: 'maritime', severity: 'varies' },
  /** Low; the zone's alert rule `on_exit` level (`info` as low) for an alerting exit (issue 23). */
  zone_exit: { category: 'maritime', severity: 'varies' },
  /** The buffer's alert level, or one level below the zone's. */
  zone_approach: { category: 'maritime', severity: 'varies' },
  ais_gap: { category: 'maritime', severity: 'high' },
  /** The band of the new score: below 25 low, below 50 medium, below 75 high, else critical. */
  risk_score_change: { category: 'maritime', severity: 'varies' },
  /** Medium (the spec's); the level of the zone's alert rule `on_dwell` for the one raised at its point (metadata.alert_rule, issue 23). */
  dwell_threshold: { category: 'maritime', severity: 'varies' },
  /** The rung's action: notify_supervisor and escalate_to_port_authority high, escalate_to_coast_guard critical. */
  dwell_escalation: { category: 'maritime', severity: 'varies' },
  speed_anomaly: { category: 'maritime', severity: 'medium' },
  // Issue 12's behaviour rules (processors/maritime/rules/): the rule's alert_level is in metadata.
  /** The record that a speed episode ended (peak, duration); not an alert. */
  speed_anomaly_end: { category: 'maritime', severity: 'low' },
  /** The record that an AIS gap ended (gap_duration_seconds, distance); not an alert. */
  ais_gap_end: { category: 'maritime', severity: 'low' },
  position_jump: { category: 'maritime', severity: 'high' },
  /** One MMSI alternating between two places no vessel could connect (two transmitters). */
  identity_conflict: { category: 'maritime', severity: 'high' },
  heading_mismatch: { category: 'maritime', severity: 'medium' },
  /** The vessel type rule's alert level (`info` as low). */
  vessel_type_violation: { category: 'maritime', severity: 'varies' },
  /** Beyond the spec: slow for long inside a zone (loitering rule's alert level, `info` as low). */
  loitering: { category: 'maritime', severity: 'varies' },
  /** Beyond the spec: crossed between two reports, neither inside (crossing rule's alert level). */
  zone_crossing: { category: 'maritime', severity: 'varies' },
  /**
   * Beyond the spec: two slow vessels close together for long inside a zone (encounter rule's alert
   * level, `info` as low); once per episode, at the report that completes the duration.
   */
  encounter: { category: 'maritime', severity: 'varies' },
  /** The record that a reported encounter ended (duration, closest distance); not an alert. */
  encounter_end: { category: 'maritime', severity: 'low' },
  /** The time-rule schedule's alert level (`info` as low). */
  occupancy_exceeded: { category: 'maritime', severity: 'varies' },

  mission_launched: { category: 'drone', severity: 'low' },
  mission_completed: { category: 'drone', severity: 'low' },
  evidence_captured: { category: 'drone', severity: 'low' },
  drone_low_battery: { category: 'drone', severity: 'medium' },
  drone_lost_link: { category: 'drone', severity: 'high' },
  mission_aborted: { category: 'drone', severity: 'medium' },

  // Our incidents (incidents/, docs/response.md "Incidents"): each incident_* event has its incident's severity,
  // the highest of the events it groups, so whoever filters by severity follows the incident's whole life.
  incident_created: { category: 'system', severity: 'varies' },
  /** Beyond the spec: an operator took the incident (its escalation stops). */
  incident_acknowledged: { category: 'system', severity: 'varies' },
  /** Beyond the spec: nobody acknowledged it within its severity's timeout; one escalation step up. */
  incident_escalated: { category: 'system', severity: 'varies' },
  incident_resolved: { category: 'system', severity: 'varies' },
  /** The component's new status: down high, degraded medium, back to healthy low. */
  system_health_change: { category: 'system', severity: 'varies' },

  // One event per automated gate decision; the type is the transaction's `decision` value.
  auto_approved: { category: 'decision', severity: 'low' },
  manual_review: { category: 'decision', severity: 'medium' },
  auto_rejected: { category: 'decision', severity: 'high' },
} as const satisfies Record<string, EventTypeRule>;

export type EventType = keyof typeof EVENT_TYPES;

/** What makes an event disagree with the table, at the field it concerns (a JSON Pointer). */
interface EventProblem {
  path: '/type' | '/category' | '/severity';
  message: string;
}

/** Whether an event's type is known, its category the type's, and a fixed severity honoured; [] when it is consistent. */
export function eventProblems(event: { type: string; category: string; severity: string }): EventProblem[] {
  const rule: EventTypeRule | undefined = Object.hasOwn(EVENT_TYPES, event.type) ? EVENT_TYPES[event.type as EventType] : undefined;
  if (rule === undefined) return [{ path: '/type', message: `unknown event type "${event.type}"` }];
  const problems: EventProblem[] = [];
  if (event.category !== rule.category) {
    problems.push({ path: '/category', message: `${event.type} events are in category ${rule.category}, not ${event.category}` });
  }
  if (rule.severity !== 'varies' && event.severity !== rule.severity) {
    problems.push({ path: '/severity', message: `${event.type} events are ${rule.severity}, not ${event.severity}` });
  }
  return problems;
}
