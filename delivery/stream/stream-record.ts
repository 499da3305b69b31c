// One security.events record as the hub holds it: where it sits on the topic, the event, and its `event`
// message serialized once for every client that receives it.
import type { SecurityEvent } from '../../schemas/event.ts';

export interface StreamRecord {
  partition: number;
  offset: number;
  /** The record's append time on the topic (ms). */
  time: number;
  event: SecurityEvent;
  /** The `event` message without its closing brace, so a resume handle can be appended cheaply. */
  head: string;
}

/**
 * Spec "WebSocket stream": server message `event` with the event's fields beside `type`. Every field of the
 * spec's Event is sent; the event's own type is `event_type` (`type` names the message). An event published
 * again after an operator's PATCH arrives as another `event` message with the same id: the newer replaces it.
 */
export function streamRecord(partition: number, offset: number, time: number, e: SecurityEvent): StreamRecord {
  const message = {
    type: 'event',
    id: e.id,
    event_type: e.type,
    timestamp: e.timestamp,
    category: e.category,
    severity: e.severity,
    source_module: e.source_module,
    source_device: e.source_device,
    title: e.title,
    description: e.description,
    location: e.location,
    metadata: e.metadata,
    requires_action: e.requires_action,
    assigned_to: e.assigned_to,
    incident_id: e.incident_id,
  };
  return { partition, offset, time, event: e, head: JSON.stringify(message).slice(0, -1) };
}

/** The record's `event` message carrying the resume handle that holds once the client has it. */
export function eventMessage(record: StreamRecord, resume: string): string {
  return `${record.head},"resume":"${resume}"}`;
}

/** Replay order: append time, then partition and offset (a partition's records keep their order). */
export function appendOrder(a: StreamRecord, b: StreamRecord): number {
  return a.time - b.time || a.partition - b.partition || a.offset - b.offset;
}
