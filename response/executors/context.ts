// What every executor gets: the pool, the configuration in force, the relay to wake after storing events,
// and the clock. The service itself is the author of the changes executors make.
import type { Operator } from '../../events/triage.ts';
import type { RelaySignal } from '../../platform/context.ts';
import type { Pool } from '../../platform/postgres.ts';
import type { SystemConfig } from '../../schemas/system-config.ts';
import type { EventSeverity } from '../../schemas/event.ts';

export interface ExecutorContext {
  pool: Pool;
  config(): SystemConfig;
  relay: RelaySignal;
  now(): Date;
}

/** source_module of the events the response loop stores (escalations, gate locks): never planned again. */
export const RESPONSE_MODULE = 'response';

/** The response loop as the author of event and incident changes (event_changes, incident_changes). */
export const RESPONSE_OPERATOR: Operator = { credentialId: 'system', principal: 'response', kind: 'system' };

/** Event severities have no `info`: an info-level action's own events are low. */
export function severityOfLevel(level: string): EventSeverity {
  return level === 'medium' || level === 'high' || level === 'critical' ? level : 'low';
}
