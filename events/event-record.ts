import type { OutRecord } from '../platform/kafka.ts';
import type { SecurityEvent } from '../schemas/event.ts';

/**
 * The security.events record of an event: keyed by its id (so a republished event lands where the first
 * copy did, and consumers deduplicate by key), its type in a header for consumers that filter without
 * decoding. The one place an event's value is encoded.
 */
export function eventRecord(topic: string, event: SecurityEvent): OutRecord {
  // No timestamp: the record carries its append time, not the event time, so events found in a replay
  // of an old recording do not fall outside the topic's retention at once.
  return { topic, key: event.id, value: JSON.stringify(event), headers: { type: event.type } };
}
