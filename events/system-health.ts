// The system_health_change events of the health model (issue 25, docs/operations.md): once per transition
// of the service's view across instances. Every instance, after writing its report, takes its turn here;
// the turn runs under a transaction-scoped advisory lock (an instance that finds it taken skips the turn:
// another is doing the same work), and the transition row (primary key component + seq), the component's
// new agreed status and the event are written in one transaction: two instances cannot both make the
// same transition, and a crash leaves either all three or none.
import { combine, decide, firstSeen, transitionSeverity, type AgreedHealth, type CombinedHealth, type HealthStatus } from '../platform/health/model.ts';
import { byComponent, freshReports } from '../platform/health/reports.ts';
import { inTransaction, type Pool, type PoolClient } from '../platform/postgres.ts';
import type { SecurityEvent } from '../schemas/event.ts';
import { eventId } from './event-id.ts';
import { storeEvents } from './store.ts';

/** Both halves of the advisory lock key: 'pss' and 'hlth' as integers, far from any other use. */
const LOCK = [0x707373, 0x686c7468] as const;

/** One turn: the transitions that passed their debounce, with their events stored (the caller wakes the relay when any is returned). */
export async function recordHealthTransitions(pool: Pool, debounceMs: number): Promise<SecurityEvent[]> {
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1, $2) AS locked', [...LOCK]);
    if (rows[0]?.locked !== true) return [];
    const fresh = await freshReports(client);
    const agreed = await agreedStates(client);
    const events: SecurityEvent[] = [];
    for (const [component, reports] of byComponent(fresh.reports)) {
      const observed = combine(reports);
      const known = agreed.get(component);
      const state = known ?? firstSeen(fresh.now);
      const decision = decide(state, observed.status, fresh.now, debounceMs);
      if (known === undefined) {
        await client.query(`INSERT INTO health_components (component, status, since) VALUES ($1, 'ok', $2) ON CONFLICT (component) DO NOTHING`, [component, fresh.now]);
      }
      if (decision.kind === 'pending') {
        await client.query('UPDATE health_components SET pending_status = $2, pending_since = $3 WHERE component = $1', [component, decision.status, decision.since]);
      } else if (decision.kind === 'clear') {
        await client.query('UPDATE health_components SET pending_status = NULL, pending_since = NULL WHERE component = $1', [component]);
      } else if (decision.kind === 'transition') {
        const event = healthChangeEvent(component, decision.from, observed, decision.seq, fresh.now);
        await client.query(
          `UPDATE health_components SET status = $2, since = $3, reason = $4, seq = $5, pending_status = NULL, pending_since = NULL WHERE component = $1`,
          [component, decision.to, observed.since, observed.reason, decision.seq],
        );
        await client.query(
          'INSERT INTO health_transitions (component, seq, from_status, to_status, at, event_id) VALUES ($1, $2, $3, $4, $5, $6)',
          [component, decision.seq, decision.from, decision.to, fresh.now, event.id],
        );
        events.push(event);
      }
    }
    return storeEvents(client, events);
  });
}

export interface AgreedComponent extends AgreedHealth {
  reason: string;
}

/** The agreed status of every component seen so far (health_components). */
export async function agreedStates(db: Pool | PoolClient): Promise<Map<string, AgreedComponent>> {
  const { rows } = await db.query<AgreedComponent & { component: string }>(
    'SELECT component, status, since, reason, seq, pending_status, pending_since FROM health_components',
  );
  return new Map(rows.map(({ component, ...state }) => [component, state]));
}

/** How a component is named to an operator. */
export function componentLabel(component: string): string {
  const [kind, name] = splitComponent(component);
  const label = LABELS[kind];
  if (label === undefined) return component;
  return name === undefined ? label : `${label} ${name}`;
}

const LABELS: Record<string, string> = {
  kafka: 'Kafka',
  kafka_topics: 'The Kafka topics',
  postgres: 'PostgreSQL',
  schema_registry: 'The schema registry',
  event_relay: 'The event relay',
  consumers: 'The Kafka consumers',
  consumer_group: 'Consumer group',
  ais_source: 'AIS source',
  gate_lane: 'Gate lane',
  ingest_producer: 'The ingest producer',
  webhook_dispatcher: 'The webhook dispatcher',
  stream_hub: 'The event stream',
  escalation_party: 'Escalation party',
};

function splitComponent(component: string): [string, string | undefined] {
  const at = component.indexOf(':');
  return at < 0 ? [component, undefined] : [component.slice(0, at), component.slice(at + 1)];
}

const SAID: Record<HealthStatus, string> = { ok: 'is back to ok', degraded: 'is degraded', down: 'is down' };

/**
 * The event of one transition. Its id comes from the component, the transition's number and when it was
 * made, so the one transaction that makes it names it, and a replay names it the same.
 */
export function healthChangeEvent(component: string, from: HealthStatus, observed: CombinedHealth, seq: number, at: Date): SecurityEvent {
  const label = componentLabel(component);
  const [kind, name] = splitComponent(component);
  return {
    id: eventId(`system_health:${component}:${seq}:${at.toISOString()}`),
    type: 'system_health_change',
    timestamp: at.toISOString(),
    category: 'system',
    severity: transitionSeverity(kind, observed.status),
    source_module: 'health',
    source_device: component,
    title: `${label} ${SAID[observed.status]}`,
    description: observed.status === 'ok' ? `Was ${from}. Every instance that checks it reports ok.` : `${observed.reason}. Was ${from}. See GET /v1/system/health.`,
    location: {},
    metadata: {
      component,
      component_kind: kind,
      ...(name === undefined ? {} : { component_name: name }),
      status: observed.status,
      previous_status: from,
      since: observed.since.toISOString(),
      reason: observed.reason,
      transition: seq,
      instances: observed.instances,
    },
    requires_action: observed.status !== 'ok',
    assigned_to: '',
    incident_id: null,
  };
}
