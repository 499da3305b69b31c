// Events from the port's other systems (POST /v1/events): checked against the type table, completed with
// what the server decides, and stored through the one store like any module's event. A client's
// idempotency key makes the id, so a retried request finds the event its first attempt stored.
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { inTransaction, type Pool } from '../platform/postgres.ts';
import { EVENT_CATEGORIES, EVENT_SEVERITIES, type EventCategory, type EventSeverity, type SecurityEvent } from '../schemas/event.ts';
import type { EventIntake } from '../schemas/event-api.ts';
import { eventId } from './event-id.ts';
import { EVENT_TYPES, type EventType } from './event-types.ts';
import { readEvent } from './queries.ts';
import { storeEvents } from './store.ts';

/** The categories of the modules outside the service (spec "What the service does"); the others the service finds itself. */
const INTAKE_CATEGORIES: readonly EventCategory[] = ['perimeter', 'drone', 'system'];
/** System types the service raises itself about its incidents (incidents/): a posted one would describe an incident that is not there. */
const SERVICE_SYSTEM_TYPES: readonly EventType[] = ['incident_created', 'incident_acknowledged', 'incident_escalated', 'incident_resolved'];
export const INTAKE_TYPES = (Object.keys(EVENT_TYPES) as EventType[]).filter((t) => INTAKE_CATEGORIES.includes(EVENT_TYPES[t].category) && !SERVICE_SYSTEM_TYPES.includes(t));

/** A client clock this far ahead is believed; further is a wrong clock (as ingest's future_timestamp). */
const FUTURE_TOLERANCE_MS = 5 * 60 * 1000;

export interface IntakeProblem {
  path: string;
  message: string;
}

/**
 * What the type table says about a body: unknown type, a type the service raises itself, another
 * category, another severity than a fixed one, no severity for a type whose severity varies, a time in
 * the future. Runs beside the schema on the body as sent, so it assumes nothing of its shape.
 */
export function intakeProblems(body: unknown, now: Date): IntakeProblem[] {
  if (typeof body !== 'object' || body === null) return [];
  const b = body as Record<string, unknown>;
  const problems: IntakeProblem[] = [];
  if (typeof b.timestamp === 'string' && Date.parse(b.timestamp) > now.getTime() + FUTURE_TOLERANCE_MS) {
    problems.push({ path: '/timestamp', message: `is more than ${FUTURE_TOLERANCE_MS / 60_000} minutes in the future (the service's clock says ${now.toISOString()})` });
  }
  if (typeof b.type !== 'string') return problems;
  if (!Object.hasOwn(EVENT_TYPES, b.type)) {
    return [{ path: '/type', message: `unknown event type ${JSON.stringify(b.type)}; POST /v1/events takes ${INTAKE_TYPES.join(', ')}` }, ...problems];
  }
  const rule = EVENT_TYPES[b.type as EventType];
  if (!INTAKE_TYPES.includes(b.type as EventType)) {
    const message = `${b.type} events (category ${rule.category}) are raised by the service itself; POST /v1/events takes the ${INTAKE_CATEGORIES.join(', ')} types: ${INTAKE_TYPES.join(', ')}`;
    return [{ path: '/type', message }, ...problems];
  }
  // A value outside the enums is the schema's to report.
  if (EVENT_CATEGORIES.includes(b.category as EventCategory) && b.category !== rule.category) {
    problems.push({ path: '/category', message: `${b.type} events are in category ${rule.category}, not ${b.category}` });
  }
  if (rule.severity === 'varies' && b.severity === undefined) {
    problems.push({ path: '/severity', message: `is required: ${b.type} events have no fixed severity` });
  } else if (rule.severity !== 'varies' && EVENT_SEVERITIES.includes(b.severity as EventSeverity) && b.severity !== rule.severity) {
    problems.push({ path: '/severity', message: `${b.type} events are ${rule.severity}, not ${b.severity}` });
  }
  return problems;
}

/**
 * The event id: from the source module and the client's idempotency key when there is one (a retry gets
 * the same id), else unique. The key is the module's: two modules may use the same key for different events.
 */
export function intakeEventId(sourceModule: string, idempotencyKey: string | undefined): string {
  return idempotencyKey === undefined ? eventId(`intake:${randomUUID()}`) : eventId(`intake:${sourceModule}:${idempotencyKey}`);
}

/** The stored event of a body without problems: the server's defaults filled in (schemas/event-api.ts). */
export function intakeEvent(body: EventIntake, id: string, now: Date): SecurityEvent {
  const rule = EVENT_TYPES[body.type as EventType];
  const severity = (body.severity ?? rule.severity) as EventSeverity;
  return {
    id,
    type: body.type,
    timestamp: new Date(body.timestamp ?? now).toISOString(),
    category: rule.category,
    severity,
    source_module: body.source_module,
    source_device: body.source_device,
    title: body.title,
    description: body.description,
    location: body.location,
    metadata: body.metadata,
    requires_action: body.requires_action ?? severity !== 'low',
    assigned_to: body.assigned_to,
    incident_id: body.incident_id,
  };
}

export type IntakeOutcome =
  | { outcome: 'created'; event: SecurityEvent }
  /** The key's event was already stored with the same content: the event as it is now. */
  | { outcome: 'replayed'; event: SecurityEvent }
  /** The key's event was stored with other content; `fields` names what differs. */
  | { outcome: 'conflict'; event: SecurityEvent; fields: string[] };

/**
 * Stores an intake event; the caller wakes the relay after a `created`. When its id is already stored
 * (a retry, or two attempts at once: the second waits for the first's insert), the stored event is
 * compared with this one, leaving out the timestamp when the server chose it.
 */
export async function recordIntake(pool: Pool, event: SecurityEvent, timestampGiven: boolean): Promise<IntakeOutcome> {
  return inTransaction(pool, async (client) => {
    if ((await storeEvents(client, [event])).length === 1) return { outcome: 'created', event };
    const { rows } = await client.query<{ body: SecurityEvent }>('SELECT body FROM security_events WHERE id = $1', [event.id]);
    const stored = rows[0]?.body as SecurityEvent;
    const fields = (Object.keys(event) as (keyof SecurityEvent)[]).filter((f) => (f !== 'timestamp' || timestampGiven) && !isDeepStrictEqual(event[f], stored[f]));
    if (fields.length > 0) return { outcome: 'conflict', event: stored, fields };
    return { outcome: 'replayed', event: (await readEvent(client, event.id)) as SecurityEvent };
  });
}
