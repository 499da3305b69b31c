// close_incident: resolves the incident the event joined, with the rule as the reason; incident_resolved
// is stored with the change (incidents/store.ts), so it goes out at once.
import { changeIncident } from '../../incidents/store.ts';
import { AppError } from '../../platform/errors.ts';
import type { ActionEffect } from './context.ts';
import { RESPONSE_OPERATOR } from './context.ts';

export function closeIncidentEffect(): ActionEffect {
  return async (action, { client, now }) => {
    // A merged incident refuses the change before writing anything, so the transaction stays usable.
    try {
      const update = await changeIncident(client, action.target, { status: 'resolved', resolution_reason: `closed by ${action.reason} on event ${action.eventId}` }, RESPONSE_OPERATOR, now);
      return { incident_id: action.target, changed: update.changed, events: update.events.map((e) => e.id) };
    } catch (err) {
      // Merged into another incident since it was planned: an operator decided what it belongs to now.
      if (!(err instanceof AppError) || err.code !== 'resource_conflict') throw err;
      return { incident_id: action.target, changed: false, skipped: err.message };
    }
  };
}
