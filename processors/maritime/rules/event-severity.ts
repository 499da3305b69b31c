import type { EventSeverity } from '../../../schemas/event.ts';
import type { AlertLevel, EscalationAction } from '../../../schemas/zone.ts';
import type { RuleZone } from './config.ts';

/**
 * Zone alert level to event severity. Event severity has no `info`, so `info` maps to `low`; the
 * configured level travels on in `metadata.alert_level`, so nothing is lost.
 */
export function severityOfAlertLevel(level: AlertLevel): EventSeverity {
  return level === 'info' ? 'low' : level;
}

/**
 * Spec "Alert levels": from `medium` up an operator is notified (push, alarm, escalation), so an
 * alerting event at those levels needs action; `info` and `low` are log and dashboard only.
 */
export function requiresActionAt(level: AlertLevel): boolean {
  return level === 'medium' || level === 'high' || level === 'critical';
}

/**
 * The severity of the zone's own dwell_threshold (spec "Event categories and types": medium). The type
 * varies in the event table only because a zone's alert rule `on_dwell` raises one at its own level.
 */
export const DWELL_THRESHOLD_SEVERITY: EventSeverity = 'medium';

/**
 * Spec "Alert levels": a supervisor is involved from `high`, all stakeholders at `critical`; the
 * coast guard is outside the port, so that rung is critical.
 */
const ESCALATION_SEVERITY: Readonly<Record<EscalationAction, EventSeverity>> = {
  notify_supervisor: 'high',
  escalate_to_port_authority: 'high',
  escalate_to_coast_guard: 'critical',
};

export function severityOfEscalation(action: EscalationAction): EventSeverity {
  return ESCALATION_SEVERITY[action] ?? 'high';
}

const ONE_LEVEL_LOWER: Readonly<Record<AlertLevel, AlertLevel>> = {
  info: 'info',
  low: 'low',
  medium: 'low',
  high: 'medium',
  critical: 'high',
};

/**
 * The buffer's own `alert_level`, or when it has none one level below the zone's: a pre-alert
 * should not sound like the incursion it warns of.
 */
export function bufferAlertLevel(zone: RuleZone): AlertLevel {
  return zone.buffer?.alert_level ?? ONE_LEVEL_LOWER[zone.alert_level];
}
