import type { SecurityEvent } from '../../schemas/event.ts';
import { eventId } from '../../events/event-id.ts';
import type { ZoneEventIntent } from './rules/zone-event-intents.ts';

const MARITIME_SOURCE_MODULE = 'maritime.zones';

/** Completes an intent into the spec's Event: the id from its cause key, the module and device that found it. */
export function zoneEvent(intent: ZoneEventIntent, sourceDevice: string): SecurityEvent {
  return {
    id: eventId(intent.key),
    type: intent.type,
    timestamp: intent.timestamp,
    category: intent.category,
    severity: intent.severity,
    source_module: MARITIME_SOURCE_MODULE,
    source_device: sourceDevice,
    title: intent.title,
    description: intent.description,
    location: intent.location,
    metadata: { ...intent.metadata },
    requires_action: intent.requires_action,
    assigned_to: '',
    incident_id: null,
  };
}
