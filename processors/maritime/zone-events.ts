import type { SecurityEvent } from '../../schemas/event.ts';
import { eventId } from '../../events/event-id.ts';
import type { RuleIntent } from './rules/rule-intent.ts';
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

const RULES_SOURCE_MODULE = 'maritime.rules';

/** Completes a behaviour rule's finding (rules/rule-intent.ts) into the spec's Event. */
export function ruleEvent(intent: RuleIntent, sourceDevice: string): SecurityEvent {
  const { key, ...event } = intent;
  return { ...event, id: eventId(key), source_module: RULES_SOURCE_MODULE, source_device: sourceDevice, assigned_to: '', incident_id: null };
}
