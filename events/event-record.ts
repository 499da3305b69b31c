import type { TopicCodec } from '../platform/codec/index.ts';
import type { OutRecord } from '../platform/kafka/index.ts';
import type { SecurityEvent } from '../schemas/event.ts';

/** What a security.events record carries: a new event, or an operator's change of a published one. */
export type EventChangeKind = 'created' | 'updated';

/**
 * The security.events record of an event: keyed by its id (so a republished event lands where the first
 * copy did, and consumers deduplicate by key), its type in a header for consumers that filter without
 * decoding. The one place an event record is built; its value goes through the topic codec.
 *
 * Headers `change` (created | updated) and `revision` (operator changes the value holds, 0 for none) tell
 * an update from a new event without touching the value's schema: a consumer keeps, per id, the highest
 * revision it has seen and ignores a record whose revision is not higher (a duplicate, or an older copy).
 */
export function eventRecord(codec: TopicCodec, topic: string, event: SecurityEvent | StoredEventText, change: EventChangeKind, revision: number): OutRecord {
  const value = 'json' in event ? codec.encodeJsonText('securityEvents', event.json) : codec.encode('securityEvents', event);
  // No timestamp: the record carries its append time, not the event time, so events found in a replay
  // of an old recording do not fall outside the topic's retention at once.
  return { topic, key: event.id, value, headers: { type: event.type, change, revision: String(revision) } };
}

/** A stored event as JSON text (its jsonb body read as text), with the id and type its record needs. */
export interface StoredEventText {
  id: string;
  type: string;
  json: string;
}
