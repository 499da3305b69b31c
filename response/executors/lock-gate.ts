// lock_gate: a whole-gate lock command through the gate command outbox (sent to gate.commands and retried
// until Kafka acknowledges it), and a gate_locked event, both in the action's transaction.
import { eventId } from '../../events/event-id.ts';
import { storeEvents } from '../../events/store.ts';
import { enqueueGateCommands } from '../../processors/gate/command-outbox.ts';
import { gateLockCommand } from '../../processors/gate/commands.ts';
import { recordGateLocks } from '../../processors/gate/gate-locks.ts';
import type { SecurityEvent } from '../../schemas/event.ts';
import type { GateCommand } from '../../schemas/gate-transaction.ts';
import type { ActionEffect, ActionInput, EffectTransaction, ExecutorContext } from './context.ts';
import { RESPONSE_MODULE } from './context.ts';

export const RESPONSE_ISSUER = 'system:response';

/**
 * Locks for several actions in one go: one outbox insert, one event store, whatever their number (the
 * locks ahead of a burst, response/locks-first.ts). Results in the actions' order.
 */
export function lockGatesEffect(ctx: Pick<ExecutorContext, 'config'>): (actions: readonly ActionInput[], tx: EffectTransaction) => Promise<Record<string, unknown>[]> {
  return async (actions, { client, events, now }) => {
    const gates = ctx.config().gates;
    const commands: GateCommand[] = [];
    const locked: SecurityEvent[] = [];
    for (const action of actions) {
      const gate = gates.find((g) => g.id === action.target);
      if (gate === undefined) throw new Error(`gate ${action.target} is not in the system configuration`);
      const cause = await events.get(action.eventId);
      const command = gateLockCommand({
        gate: gate.id, actionId: action.id, reason: `${cause.type} ${cause.id} (${action.reason})`, issuedAt: now.toISOString(), issuedBy: RESPONSE_ISSUER,
        ...(action.incidentId === null ? {} : { incidentId: action.incidentId }), eventId: cause.id,
      });
      commands.push(command);
      locked.push({
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
      });
    }
    // The gate's lock state first: its row lock orders this lock against an operator's release (gate-locks.ts).
    await recordGateLocks(client, commands);
    await enqueueGateCommands(client, commands);
    await storeEvents(client, locked);
    return commands.map((c, i) => ({ gate: c.gate, command_id: c.command_id, event_id: locked[i]?.id }));
  };
}

export function lockGateEffect(ctx: Pick<ExecutorContext, 'config'>): ActionEffect {
  const lockAll = lockGatesEffect(ctx);
  return async (action, tx) => (await lockAll([action], tx))[0] ?? {};
}
