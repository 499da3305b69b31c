// The health reporter of one instance (issue 25, docs/operations.md): every PSS_HEALTH_REPORT_INTERVAL_MS
// it runs the instance's checks (the same ones /readyz runs) and the features' health sources, writes
// the report to Postgres with its expiry, and takes its turn at turning lasting changes of the service's
// view into system_health_change events (events/system-health.ts).
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { recordHealthTransitions } from '../events/system-health.ts';
import type { RunningRole, ServiceContext } from '../platform/context.ts';
import { withDeadline } from '../platform/deadline.ts';
import { consumerGroupSource } from '../platform/health/consumer-groups.ts';
import type { ComponentHealth, HealthSource } from '../platform/health/model.ts';
import { withdrawReport, writeReport, type LocalComponent } from '../platform/health/reports.ts';
import { gauge } from '../platform/metrics.ts';
import { startPeriodicJob } from '../platform/periodic-job.ts';
import type { ReadinessCheck } from '../platform/readiness.ts';
import type { Feature } from './feature.ts';

const CHECK_TIMEOUT_MS = 2_000;
const STATUS_VALUE = { ok: 0, degraded: 1, down: 2 } as const;
const componentGauge = gauge('pss_health_component_status', 'This instance\'s view of a component of the health model (docs/operations.md): 0 ok, 1 degraded, 2 down.', ['component']);

/** A readiness check as a component: failing is down, resolving with a text is degraded (it works, with that said). */
export function readinessSource(checks: Record<string, ReadinessCheck>): HealthSource {
  return async () => {
    const entries = await Promise.all(
      Object.entries(checks).map(async ([name, check]): Promise<[string, ComponentHealth]> => {
        try {
          const detail: unknown = await withDeadline(check(), CHECK_TIMEOUT_MS);
          return [name, typeof detail === 'string' && detail !== '' ? { status: 'degraded', reason: detail } : { status: 'ok', reason: '' }];
        } catch (err) {
          return [name, { status: 'down', reason: (err as Error).message }];
        }
      }),
    );
    return Object.fromEntries(entries);
  };
}

/** This instance's components now: every source asked at once; a source that fails names itself down. */
export async function localHealth(sources: Record<string, HealthSource>): Promise<Map<string, ComponentHealth>> {
  const out = new Map<string, ComponentHealth>();
  await Promise.all(
    Object.entries(sources).map(async ([name, source]) => {
      try {
        for (const [component, health] of Object.entries(await withDeadline(source(), CHECK_TIMEOUT_MS * 2))) out.set(component, health);
      } catch (err) {
        out.set(name, { status: 'down', reason: `health check failed: ${(err as Error).message}` });
      }
    }),
  );
  return out;
}

export interface HealthReporter extends RunningRole {
  instanceId: string;
}

export function startHealthReporter(ctx: Pick<ServiceContext, 'config' | 'pool' | 'log' | 'relay'>, roles: readonly string[], sources: Record<string, HealthSource>): HealthReporter {
  const { config, pool, log } = ctx;
  const instanceId = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const since = new Map<string, LocalComponent>();
  if (config.healthReportIntervalMs === 0) return { instanceId, name: 'health', stop: async () => undefined };
  const job = startPeriodicJob({
    name: 'health',
    everyMs: config.healthReportIntervalMs,
    log,
    run: async () => {
      const now = new Date();
      const current = await localHealth(sources);
      for (const [component, health] of current) {
        const before = since.get(component);
        since.set(component, { ...health, since: before !== undefined && before.status === health.status ? before.since : now });
        componentGauge.set({ component }, STATUS_VALUE[health.status]);
      }
      for (const component of [...since.keys()]) {
        if (current.has(component)) continue;
        since.delete(component);
        componentGauge.remove({ component });
      }
      await writeReport(pool, instanceId, roles, since, config.healthReportTtlMs);
      const fresh = await recordHealthTransitions(pool, config.healthDebounceMs);
      if (fresh.length > 0) {
        log.info({ events: fresh.map((e) => ({ component: e.metadata.component, status: e.metadata.status })) }, 'system health changed');
        ctx.relay.wake();
      }
    },
  });
  return {
    instanceId,
    name: 'health',
    stop: async () => {
      await job.stop();
      await withdrawReport(pool, instanceId).catch((err: unknown) => log.warn({ err }, 'health report not withdrawn; it expires by itself'));
    },
  };
}

/**
 * Every source of this instance's components: the readiness checks (as `checks`), each consumer group
 * by its lag, the schema registry when one is configured, and each feature's own (app/feature.ts `health`, keyed by the feature's name).
 */
export function healthSources(ctx: ServiceContext, readiness: Record<string, ReadinessCheck>, features: readonly Feature[]): Record<string, HealthSource> {
  const sources: Record<string, HealthSource> = { checks: readinessSource(readiness), consumer_groups: consumerGroupSource(ctx.kafka) };
  if (ctx.config.schemaRegistryUrl !== '') sources.schema_registry = schemaRegistrySource(ctx.config.schemaRegistryUrl);
  for (const feature of features) {
    const source = feature.health?.(ctx);
    if (source !== undefined) sources[feature.name] = source;
  }
  return sources;
}

/** The registry answers its subject list: the codec needs it for any schema it has not cached yet. */
function schemaRegistrySource(url: string): HealthSource {
  return async () => {
    try {
      const res = await fetch(`${url}/subjects`, { signal: AbortSignal.timeout(CHECK_TIMEOUT_MS) });
      await res.body?.cancel();
      return { schema_registry: res.ok ? { status: 'ok', reason: '' } : { status: 'down', reason: `GET /subjects answered ${res.status}` } };
    } catch (err) {
      return { schema_registry: { status: 'down', reason: (err as Error).message } };
    }
  };
}
