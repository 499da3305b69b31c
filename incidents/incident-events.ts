// The service's own events about incidents (pure): incident_created, incident_acknowledged,
// incident_escalated, incident_resolved (events/event-types.ts). Each carries its incident's severity, so a
// subscriber filtering by severity sees the whole life of the incidents it was told about (a resolved
// notice reaches whoever got the created one, as Alertmanager's send_resolved); requires_action says
// whether it asks someone to act: created and escalated do (from medium up), acknowledged and resolved do
// not. Ids come from the incident and its revision after the change, so a replay stores nothing twice.
import { eventId } from '../events/event-id.ts';
import type { SecurityEvent } from '../schemas/event.ts';
import type { Incident } from '../schemas/incident.ts';

export const INCIDENT_SOURCE_MODULE = 'incidents';

export const INCIDENT_EVENT_TYPES = ['incident_created', 'incident_acknowledged', 'incident_escalated', 'incident_resolved'] as const;
type IncidentEventType = (typeof INCIDENT_EVENT_TYPES)[number];

/** The incident's own events are about it, not grouped into it (nor into another one). */
export function isIncidentEvent(event: Pick<SecurityEvent, 'type'>): boolean {
  return (INCIDENT_EVENT_TYPES as readonly string[]).includes(event.type);
}

function incidentEvent(type: IncidentEventType, incident: Incident, now: Date, text: { title: string; description: string }, extra: Record<string, unknown>): SecurityEvent {
  const asks = type === 'incident_created' || type === 'incident_escalated';
  return {
    id: eventId(type === 'incident_created' ? `${type}:${incident.id}` : `${type}:${incident.id}:${incident.revision}`),
    type,
    timestamp: now.toISOString(),
    category: 'system',
    severity: incident.severity,
    source_module: INCIDENT_SOURCE_MODULE,
    source_device: incident.id,
    title: text.title,
    description: text.description,
    location: incident.location,
    metadata: {
      incident_id: incident.id,
      key: incident.key,
      reason: incident.reason,
      status: incident.status,
      event_count: incident.event_count,
      escalation_step: incident.escalation_step,
      ...extra,
    },
    requires_action: asks && incident.severity !== 'low',
    assigned_to: incident.assigned_to,
    incident_id: incident.id,
  };
}

export function incidentCreated(incident: Incident, now: Date): SecurityEvent {
  return incidentEvent('incident_created', incident, now, { title: `Incident opened: ${incident.title}`, description: `Grouped by ${incident.reason}.` }, {
    opening_event_id: incident.opening_event_id,
    mmsi: incident.mmsi,
    zone: incident.zone,
    gate_id: incident.gate_id,
    container_id: incident.container_id,
    plate: incident.plate,
  });
}

export function incidentAcknowledged(incident: Incident, now: Date): SecurityEvent {
  return incidentEvent('incident_acknowledged', incident, now, { title: `Incident acknowledged by ${incident.acknowledged_by}: ${incident.title}`, description: `Escalation stopped at step ${incident.escalation_step}.` }, {
    acknowledged_by: incident.acknowledged_by,
  });
}

export function incidentEscalated(incident: Incident, now: Date): SecurityEvent {
  return incidentEvent('incident_escalated', incident, now, {
    title: `Incident not acknowledged, escalated to step ${incident.escalation_step}: ${incident.title}`,
    description: `Open since ${incident.opened_at}; nobody acknowledged it within the ${incident.severity} acknowledgement timeout.`,
  }, { next_escalation_at: incident.next_escalation_at });
}

export function incidentResolved(incident: Incident, now: Date): SecurityEvent {
  return incidentEvent('incident_resolved', incident, now, { title: `Incident resolved: ${incident.title}`, description: `Resolved by ${incident.resolved_by}: ${incident.resolution_reason}` }, {
    resolved_by: incident.resolved_by,
    resolution_reason: incident.resolution_reason,
    merged_into: incident.merged_into,
  });
}
