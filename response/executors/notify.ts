// notify: one record per channel the level (or a rule's notify_operator) asks for, each delivered concretely:
// dashboard -> the event requires action (and is assigned where the rule names an operator), republished
// to the stream as an update; push -> signed webhook deliveries of the event to channels.push; audio_alarm
// -> the same flag, and the action record the console sounds.
import { enqueueDeliveries } from '../../delivery/webhooks/queue.ts';
import { readEvent } from '../../events/queries.ts';
import { changeEventIn } from '../../events/triage.ts';
import { inTransaction } from '../../platform/postgres.ts';
import { completeAction } from '../action-log.ts';
import type { ActionHandler } from '../executor.ts';
import { RESPONSE_OPERATOR, type ExecutorContext } from './context.ts';

export function notifyExecutor(ctx: ExecutorContext): ActionHandler {
  return async (action) => {
    let republished = false;
    const kept = await inTransaction(ctx.pool, async (client) => {
      const event = await readEvent(client, action.eventId);
      if (event === undefined) throw new Error(`event ${action.eventId} is not stored`);
      const result: Record<string, unknown> = { channel: action.target };
      if (action.target === 'push') {
        const webhooks = ctx.config().channels.push.webhook_ids;
        result.deliveries = await enqueueDeliveries(client, webhooks.map((webhookId) => ({ webhookId, event })), ctx.now().getTime());
        result.webhook_ids = webhooks;
      } else {
        const assignTo = action.params.assign_to;
        const change = await changeEventIn(client, action.eventId, { requires_action: true, ...(assignTo === undefined ? {} : { assigned_to: assignTo }) }, RESPONSE_OPERATOR);
        republished = change?.changed === true;
        result.requires_action = true;
        if (assignTo !== undefined) result.assigned_to = assignTo;
        if (action.target === 'audio_alarm') result.alarm = true;
      }
      return completeAction(client, action, result);
    });
    if (republished) ctx.relay.wake();
    return kept;
  };
}
