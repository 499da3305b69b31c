// What every executor gets: the pool, the configuration in force, the relay to wake after storing events,
// and the clock. The service itself is the author of the changes executors make.
//
// Most kinds are an *effect*: writes made in a transaction it is given (a gate command in the outbox, an
// event in the store, webhook deliveries in their queue). The same effect runs either in the planning
// transaction, as the first attempt of an action just planned (response/planning.ts), or in a transaction
// of its own when the executor claims it from the action log (a retry, or a first attempt planning left).
import { readEvent } from '../../events/queries.ts';
import type { Operator } from '../../events/triage.ts';
import type { RelaySignal } from '../../platform/context.ts';
import type { Pool, PoolClient } from '../../platform/postgres.ts';
import type { SystemConfig } from '../../schemas/system-config.ts';
import type { EventSeverity, SecurityEvent } from '../../schemas/event.ts';
import type { ClaimedAction } from '../action-log.ts';

export interface ExecutorContext {
  pool: Pool;
  config(): SystemConfig;
  relay: RelaySignal;
  now(): Date;
}

/** An action as an effect needs it: a claimed one, or one the planning transaction just recorded. */
export type ActionInput = Pick<ClaimedAction, 'id' | 'kind' | 'target' | 'eventId' | 'incidentId' | 'level' | 'reason' | 'params'>;

/**
 * The stored events an effect reads, once per transaction: several actions of one event share the read,
 * and an effect that changed an event (notify) puts the new state back for the actions after it.
 */
export class EventReads {
  readonly #events = new Map<string, SecurityEvent>();
  constructor(private readonly client: PoolClient) {}
  async get(id: string): Promise<SecurityEvent> {
    const known = this.#events.get(id);
    if (known !== undefined) return known;
    const event = await readEvent(this.client, id);
    if (event === undefined) throw new Error(`event ${id} is not stored`);
    this.#events.set(id, event);
    return event;
  }
  put(event: SecurityEvent): void {
    this.#events.set(event.id, event);
  }
}

export interface EffectTransaction {
  client: PoolClient;
  events: EventReads;
  now: Date;
}

/** One action's writes in the given transaction; returns the result recorded with it. Throws to have it retried. */
export type ActionEffect = (action: ActionInput, tx: EffectTransaction) => Promise<Record<string, unknown>>;

/** source_module of the events the response loop stores (escalations, gate locks): never planned again. */
export const RESPONSE_MODULE = 'response';

/** The response loop as the author of event and incident changes (event_changes, incident_changes). */
export const RESPONSE_OPERATOR: Operator = { credentialId: 'system', principal: 'response', kind: 'system' };

/** Event severities have no `info`: an info-level action's own events are low. */
export function severityOfLevel(level: string): EventSeverity {
  return level === 'medium' || level === 'high' || level === 'critical' ? level : 'low';
}
