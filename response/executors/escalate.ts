// escalate (escalate_to, the dwell ladder, the level's escalation, an unacknowledged incident): an
// incident_escalated event naming the party, stored through the one event store (so the stream and
// matching webhooks see it), and signed deliveries of it to each of the party's receivers (its active webhooks).
import { enqueueDeliveries } from '../../delivery/webhooks/queue.ts';
import { eventId } from '../../events/event-id.ts';
import { storeEvents } from '../../events/store.ts';
import type { SecurityEvent } from '../../schemas/event.ts';
import { receiversOf } from '../settings/party-receivers.ts';
import { activeWebhooks } from '../settings/system-config-store.ts';
import { RESPONSE_MODULE, severityOfLevel, type ActionEffect, type ActionInput, type ExecutorContext } from './context.ts';

/**
 * Why an escalation was made, in a few words for its title: without them an escalation made because no
 * drone could fly reads as if the cause's own words (a dwell ladder's "...: notify_supervisor") had sent
 * it to the port authority (issue 33, item 10).
 */
export function escalationWhy(reason: string): string {
  const [kind, ...rest] = reason.split(':');
  if (kind === 'ladder') return `dwell ladder ${rest.join(':')}`;
  if (kind === 'level') return `${rest.join(':')} alert level`;
  if (kind === 'zone') return `zone ${rest.slice(0, -1).join(':')} ${rest.at(-1) ?? ''} rule`;
  if (kind === 'fleet') return rest[0]?.trim() ?? 'drone mission';
  return reason;
}

export function escalationEvent(action: ActionInput, cause: SecurityEvent, party: { id: string; name: string; operator_groups: readonly string[] }, at: Date): SecurityEvent {
  return {
    id: eventId(`incident_escalated:action:${action.id}`),
    type: 'incident_escalated',
    timestamp: at.toISOString(),
    category: 'system',
    severity: severityOfLevel(action.level),
    source_module: RESPONSE_MODULE,
    source_device: party.id,
    title: `Escalated to ${party.name} (${escalationWhy(action.reason)}): ${cause.title}`,
    description: `${cause.description} (escalated by ${action.reason})`,
    location: cause.location,
    metadata: { party: party.id, party_name: party.name, operator_groups: [...party.operator_groups], cause_event_id: cause.id, action_id: action.id, reason: action.reason, incident_id: action.incidentId },
    requires_action: true,
    assigned_to: '',
    incident_id: action.incidentId,
  };
}

export function escalateEffect(ctx: Pick<ExecutorContext, 'config'>): ActionEffect {
  return async (action, { client, events, now }) => {
    const party = ctx.config().parties.find((p) => p.id === action.target);
    if (party === undefined) throw new Error(`party ${action.target} is not in the system configuration`);
    // An unacknowledged incident's escalation event was stored by the sweep that escalated it.
    const given = action.params.escalation_event_id;
    const cause = await events.get(given ?? action.eventId);
    const escalation = given === undefined ? escalationEvent(action, cause, party, now) : cause;
    if (given === undefined) await storeEvents(client, [escalation]);
    // Its receivers as things stand (an inactive webhook is none: the matcher records nothing for it either).
    const receivers = receiversOf(party, { activeWebhooks: await activeWebhooks(client, party.webhook_ids) });
    const webhookIds = receivers.map((r) => r.id);
    const deliveries = await enqueueDeliveries(client, webhookIds.map((webhookId) => ({ webhookId, event: escalation })), now.getTime());
    // deliveries 0: the party had no receiver and nobody was told (GET /v1/incidents/{id} escalations[].deliveries).
    return { party: party.id, event_id: escalation.id, webhook_ids: webhookIds, deliveries, operator_groups: party.operator_groups };
  };
}
