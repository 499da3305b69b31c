// The health model (issue 25, docs/operations.md): every component has a status, since when, and why;
// each instance reports its own view, and the service's view across instances is derived here, pure.
// The same statuses feed /readyz (per instance), GET /v1/system/health (across instances) and the
// system_health_change events (one per transition of the service's view, after the debounce).

export const HEALTH_STATUSES = ['ok', 'degraded', 'down'] as const;
export type HealthStatus = (typeof HEALTH_STATUSES)[number];

/** What a probe says about one component on this instance. */
export interface ComponentHealth {
  status: HealthStatus;
  /** Why, in words for an operator; '' when ok and nothing to say. */
  reason: string;
}

/**
 * Where an instance's components come from: the readiness checks (ok or down), and sources that name
 * components of their own (a feature's workers, each ingest feed, each consumer group). A component is
 * added by returning one more entry (app/feature.ts `health`).
 */
export type HealthSource = () => Promise<Record<string, ComponentHealth>>;

/** One instance's report of one component, as stored (fresh ones only). */
export interface InstanceReport {
  instance_id: string;
  component: string;
  status: HealthStatus;
  since: Date;
  reason: string;
}

const RANK: Record<HealthStatus, number> = { ok: 0, degraded: 1, down: 2 };

export function worst(statuses: Iterable<HealthStatus>): HealthStatus {
  let out: HealthStatus = 'ok';
  for (const s of statuses) if (RANK[s] > RANK[out]) out = s;
  return out;
}

/** The service's view of one component from the instances that report it. */
export interface CombinedHealth extends ComponentHealth {
  since: Date;
  instances: { instance_id: string; status: HealthStatus; since: string; reason: string }[];
}

/**
 * Across instances: down when every instance that reports the component says down; degraded when some
 * do (the service still works through the others) or any says degraded; else ok. A feed is ok when any
 * instance hears it (the others' silence is only theirs). `since` is when the
 * newest of the reports that decide the status began; the reason lists the instances that are not ok.
 */
export function combine(all: readonly InstanceReport[]): CombinedHealth {
  // A feed may reach several instances (HTTP ingest behind a balancer): heard by one, it is not silent.
  const heard = all.some((r) => r.status === 'ok' && FEEDS.has(kindOf(r.component)));
  const reports = heard ? all.filter((r) => r.status === 'ok') : all;
  const down = reports.filter((r) => r.status === 'down');
  const notOk = reports.filter((r) => r.status !== 'ok');
  const status: HealthStatus = reports.length > 0 && down.length === reports.length ? 'down' : notOk.length > 0 ? 'degraded' : 'ok';
  const deciding = status === 'ok' ? reports : notOk;
  const since = new Date(Math.max(...deciding.map((r) => r.since.getTime())));
  const reason =
    status === 'ok'
      ? ''
      : [...new Set(notOk.map((r) => r.reason || r.status))].join('; ') + (reports.length > 1 ? ` (${notOk.length} of ${reports.length} instances)` : '');
  const instances = [...all]
    .sort((a, b) => a.instance_id.localeCompare(b.instance_id))
    .map((r) => ({ instance_id: r.instance_id, status: r.status, since: r.since.toISOString(), reason: r.reason }));
  return { status, reason, since, instances };
}

/** Components that are ingest feeds: ok when any instance hears them. */
const FEEDS = new Set(['ais_source', 'gate_lane']);

/** `consumer_group` of `consumer_group:pss-webhooks`. */
export function kindOf(component: string): string {
  const at = component.indexOf(':');
  return at < 0 ? component : component.slice(0, at);
}

/** The agreed status of a component: what the last system_health_change said, and a differing status waiting out the debounce. */
export interface AgreedHealth {
  status: HealthStatus;
  since: Date;
  seq: number;
  pending_status: HealthStatus | null;
  pending_since: Date | null;
}

export type HealthDecision =
  | { kind: 'none' }
  /** A new status was seen: it must hold for the debounce before it becomes a transition. */
  | { kind: 'pending'; status: HealthStatus; since: Date }
  /** The status went back to the agreed one before the debounce passed (a flap): nothing is said. */
  | { kind: 'clear' }
  | { kind: 'transition'; from: HealthStatus; to: HealthStatus; seq: number };

/**
 * Debounce against flapping: the observed status must differ from the agreed one, the same, for
 * `debounceMs` before the transition is made. A component seen for the first time counts as having
 * been ok, so one that starts down is a transition too (after the debounce).
 */
export function decide(agreed: AgreedHealth, observed: HealthStatus, now: Date, debounceMs: number): HealthDecision {
  if (observed === agreed.status) return agreed.pending_status === null ? { kind: 'none' } : { kind: 'clear' };
  if (agreed.pending_status !== observed || agreed.pending_since === null) return { kind: 'pending', status: observed, since: now };
  if (now.getTime() - agreed.pending_since.getTime() < debounceMs) return { kind: 'none' };
  return { kind: 'transition', from: agreed.status, to: observed, seq: agreed.seq + 1 };
}

/** A component seen for the first time: ok since now, no transition yet. */
export function firstSeen(now: Date): AgreedHealth {
  return { status: 'ok', since: now, seq: 0, pending_status: null, pending_since: null };
}

/** Dependencies without which nothing flows: their loss is critical, not high. */
const CRITICAL_WHEN_DOWN = new Set(['kafka', 'postgres']);

/**
 * Severity of the system_health_change of a transition to `to`: back to ok low, degraded medium, down
 * high, and critical for Kafka and Postgres down. A feed that goes silent is down (high): its vessels
 * are not watched meanwhile.
 */
export function transitionSeverity(component: string, to: HealthStatus): 'low' | 'medium' | 'high' | 'critical' {
  if (to === 'ok') return 'low';
  if (to === 'degraded') return 'medium';
  return CRITICAL_WHEN_DOWN.has(component) ? 'critical' : 'high';
}

/** The service's overall status: the worst of its components. */
export function overall(components: Iterable<{ status: HealthStatus }>): HealthStatus {
  return worst([...components].map((c) => c.status));
}
