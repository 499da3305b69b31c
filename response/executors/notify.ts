// notify: one record per channel the level (or a rule's notify_operator) asks for, each delivered concretely:
// dashboard -> the event requires action (and is assigned where the rule names an operator), republished
// to the stream as an update; push -> signed webhook deliveries of the event to channels.push; audio_alarm
// -> the same flag, and the action record the console sounds.
import { enqueueDeliveries } from '../../delivery/webhooks/queue.ts';
import { changeEventIn } from '../../events/triage.ts';
import type { ActionEffect, ExecutorContext } from './context.ts';
import { RESPONSE_OPERATOR } from './context.ts';

export function notifyEffect(ctx: Pick<ExecutorContext, 'config'>): ActionEffect {
  return async (action, { client, events, now }) => {
    const event = await events.get(action.eventId);
    const result: Record<string, unknown> = { channel: action.target };
    if (action.target === 'push') {
      const webhooks = ctx.config().channels.push.webhook_ids;
      result.deliveries = await enqueueDeliveries(client, webhooks.map((webhookId) => ({ webhookId, event })), now.getTime());
      result.webhook_ids = webhooks;
      return result;
    }
    const assignTo = action.params.assign_to;
    // The dashboard and the audio alarm of one event ask for the same flag: the second finds it set and
    // writes nothing (no second history row, no second republication).
    if (!event.requires_action || (assignTo !== undefined && event.assigned_to !== assignTo)) {
      const change = await changeEventIn(client, action.eventId, { requires_action: true, ...(assignTo === undefined ? {} : { assigned_to: assignTo }) }, RESPONSE_OPERATOR);
      if (change !== undefined) events.put(change.event);
    }
    result.requires_action = true;
    if (assignTo !== undefined) result.assigned_to = assignTo;
    if (action.target === 'audio_alarm') result.alarm = true;
    return result;
  };
}
