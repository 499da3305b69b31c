// close_incident: resolves the incident the event joined, with the rule as the reason; incident_resolved
// is stored with the change (incidents/store.ts), so it goes out at once.
import { changeIncident } from '../../incidents/store.ts';
import { AppError } from '../../platform/errors.ts';
import { inTransaction } from '../../platform/postgres.ts';
import { completeAction } from '../action-log.ts';
import type { ActionHandler } from '../executor.ts';
import { RESPONSE_OPERATOR, type ExecutorContext } from './context.ts';

export function closeIncidentExecutor(ctx: ExecutorContext): ActionHandler {
  return async (action) => {
    const kept = await inTransaction(ctx.pool, async (client) => {
      try {
        const update = await changeIncident(client, action.target, { status: 'resolved', resolution_reason: `closed by ${action.reason} on event ${action.eventId}` }, RESPONSE_OPERATOR, ctx.now());
        return completeAction(client, action, { incident_id: action.target, changed: update.changed, events: update.events.map((e) => e.id) });
      } catch (err) {
        // Merged into another incident since it was planned: an operator decided what it belongs to now.
        if (!(err instanceof AppError) || err.code !== 'resource_conflict') throw err;
        return completeAction(client, action, { incident_id: action.target, changed: false, skipped: err.message });
      }
    });
    ctx.relay.wake();
    return kept;
  };
}
