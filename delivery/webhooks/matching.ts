// Spec "Webhook deliveries": an event is delivered when it matches the webhook's events, min_severity,
// categories and zones, all of them. Pure.
import { EVENT_SEVERITIES, type EventSeverity, type SecurityEvent } from '../../schemas/event.ts';

export interface WebhookFilter {
  id: string;
  events: string[];
  min_severity: EventSeverity | null;
  categories: string[] | null;
  zones: string[] | null;
}

const rank = (s: string) => EVENT_SEVERITIES.indexOf(s as EventSeverity);

export function matches(webhook: WebhookFilter, event: SecurityEvent): boolean {
  if (!(webhook.events.includes('*') || webhook.events.includes(event.type))) return false;
  if (webhook.min_severity !== null && rank(event.severity) < rank(webhook.min_severity)) return false;
  if (webhook.categories !== null && webhook.categories.length > 0 && !webhook.categories.includes(event.category)) return false;
  if (webhook.zones !== null && webhook.zones.length > 0) {
    const zone = event.location.zone?.toLowerCase();
    if (zone === undefined || !webhook.zones.some((z) => z.toLowerCase() === zone)) return false;
  }
  // A webhook is not told about its own failure: it could not receive it, and a delivery that fails
  // would count towards deactivating it.
  return (event.metadata as { webhook_id?: unknown }).webhook_id !== webhook.id;
}
