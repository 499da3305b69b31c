// The admin's alert when a webhook fails (spec "Webhook" states): a system event through the one event
// store, so it reaches the stream, the events API and other webhooks like any other event.
import { eventId } from '../../events/event-id.ts';
import type { SecurityEvent } from '../../schemas/event.ts';

export interface WebhookAlert {
  webhookId: string;
  webhookName: string;
  deliveryId: string;
  attempt: number;
  kind: 'failing' | 'deactivated' | 'gone';
  at: number;
}

const TITLES: Record<WebhookAlert['kind'], (name: string) => string> = {
  failing: (name) => `Webhook "${name}" is failing: a delivery failed all 8 attempts`,
  deactivated: (name) => `Webhook "${name}" was deactivated after 3 consecutive fully failed deliveries`,
  gone: (name) => `Webhook "${name}" was disabled for good: its endpoint answered 410 Gone`,
};

export function alertEvent(a: WebhookAlert): SecurityEvent {
  return {
    id: eventId(`webhook_${a.kind}:${a.deliveryId}:${a.attempt}`),
    type: 'system_health_change',
    timestamp: new Date(a.at).toISOString(),
    category: 'system',
    severity: 'high',
    source_module: 'webhooks',
    source_device: a.webhookId,
    title: TITLES[a.kind](a.webhookName),
    description: `Delivery ${a.deliveryId}, attempt ${a.attempt}. See GET /v1/webhooks/${a.webhookId} for its health and /deliveries for the history.`,
    location: {},
    metadata: { component: 'webhook', webhook_id: a.webhookId, delivery_id: a.deliveryId, status: a.kind === 'failing' ? 'failing' : 'disabled', reason: a.kind },
    requires_action: true,
    assigned_to: '',
    incident_id: null,
  };
}
