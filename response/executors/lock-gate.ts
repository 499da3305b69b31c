// lock_gate: a whole-gate lock command through the gate command outbox (sent to gate.commands and retried
// until Kafka acknowledges it), and a gate_locked event, both in the action's transaction.
import { eventId } from '../../events/event-id.ts';
import { readEvent } from '../../events/queries.ts';
import { storeEvents } from '../../events/store.ts';
import { enqueueGateCommand } from '../../processors/gate/command-outbox.ts';
import { gateLockCommand } from '../../processors/gate/commands.ts';
import { inTransaction } from '../../platform/postgres.ts';
import type { SecurityEvent } from '../../schemas/event.ts';
import { completeAction } from '../action-log.ts';
import type { ActionHandler } from '../executor.ts';
import { RESPONSE_MODULE, type ExecutorContext } from './context.ts';

export const RESPONSE_ISSUER = 'system:response';

export function lockGateExecutor(ctx: ExecutorContext): ActionHandler {
  return async (action) => {
    const gate = ctx.config().gates.find((g) => g.id === action.target);
    if (gate === undefined) throw new Error(`gate ${action.target} is not in the system configuration`);
    const kept = await inTransaction(ctx.pool, async (client) => {
      const cause = await readEvent(client, action.eventId);
      if (cause === undefined) throw new Error(`event ${action.eventId} is not stored`);
      const now = ctx.now();
      const command = gateLockCommand({
        gate: gate.id, actionId: action.id, reason: `${cause.type} ${cause.id} (${action.reason})`, issuedAt: now.toISOString(), issuedBy: RESPONSE_ISSUER,
        ...(action.incidentId === null ? {} : { incidentId: action.incidentId }), eventId: cause.id,
      });
      await enqueueGateCommand(client, command);
      const locked: SecurityEvent = {
        id: eventId(`gate_locked:${action.id}`),
        type: 'gate_locked',
        timestamp: now.toISOString(),
        category: 'gate',
        severity: 'high',
        source_module: RESPONSE_MODULE,
        source_device: gate.id,
        title: `Gate ${gate.name} locked`,
        description: `All lanes of ${gate.name} locked by the response to ${cause.title}`,
        location: {},
        metadata: { gate_id: gate.id, command_id: command.command_id, action_id: action.id, cause_event_id: cause.id, reason: action.reason },
        requires_action: true,
        assigned_to: '',
        incident_id: action.incidentId,
      };
      await storeEvents(client, [locked]);
      return completeAction(client, action, { gate: gate.id, command_id: command.command_id, event_id: locked.id });
    });
    ctx.relay.wake();
    return kept;
  };
}
