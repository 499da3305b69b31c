// Spec "Webhook deliveries": the body and headers of one attempt. Pure.
import type { SecurityEvent } from '../../schemas/event.ts';
import { signature } from './signature.ts';

export const USER_AGENT = 'Service-Webhooks/1.0';

export interface DeliveryRequest {
  body: Buffer;
  headers: Record<string, string>;
}

export function deliveryRequest(input: {
  deliveryId: string;
  webhookId: string;
  event: SecurityEvent;
  attempt: number;
  now: number;
  secret: string;
  customHeaders: Record<string, string>;
}): DeliveryRequest {
  const { event } = input;
  const body = Buffer.from(
    JSON.stringify({
      id: input.deliveryId,
      webhook_id: input.webhookId,
      event: {
        id: event.id, type: event.type, timestamp: event.timestamp, category: event.category, severity: event.severity,
        title: event.title, description: event.description, location: event.location, metadata: event.metadata,
      },
      delivered_at: new Date(input.now).toISOString(),
      attempt: input.attempt,
    }),
  );
  const timestamp = Math.floor(input.now / 1000);
  return {
    body,
    headers: {
      ...input.customHeaders,
      'Content-Type': 'application/json',
      'X-Service-Webhook-ID': input.webhookId,
      'X-Service-Delivery-ID': input.deliveryId,
      'X-Service-Event-Type': event.type,
      'X-Service-Signature': signature(input.secret, timestamp, body),
      'X-Service-Timestamp': String(timestamp),
      'User-Agent': USER_AGENT,
    },
  };
}
