// What GET /v1/incidents/{id} shows of the response loop (issue 23, item 5): the incident's actions as the
// log holds them, and two operator views of them: notifications (notify actions, per channel) and
// escalations (escalate actions, per party). Pure; the API reads the log (listActions) and composes.
import type { IncidentEscalation, IncidentNotification, ResponseAction } from '../schemas/incident.ts';
import type { ActionView } from './action-log.ts';

export interface IncidentResponseRecords {
  actions: ResponseAction[];
  notifications: IncidentNotification[];
  escalations: IncidentEscalation[];
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const texts = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
const count = (value: unknown): number => (typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : 0);

export function incidentResponseRecords(actions: readonly ActionView[]): IncidentResponseRecords {
  const at = (a: ActionView) => a.done_at ?? a.created_at;
  return {
    actions: [...actions],
    notifications: actions.filter((a) => a.kind === 'notify').map((a) => ({
      action_id: a.id, event_id: a.event_id, channel: a.target, status: a.status,
      assigned_to: a.params.assign_to ?? text(a.result?.assigned_to) ?? null, webhook_ids: texts(a.result?.webhook_ids), at: at(a),
    })),
    escalations: actions.filter((a) => a.kind === 'escalate').map((a) => ({
      action_id: a.id, event_id: a.event_id, party: a.target, source: a.source, reason: a.reason,
      status: a.status,
      escalation_event_id: text(a.result?.event_id) ?? a.params.escalation_event_id ?? null, webhook_ids: texts(a.result?.webhook_ids),
      deliveries: a.status === 'done' ? count(a.result?.deliveries) : null, at: at(a),
    })),
  };
}
