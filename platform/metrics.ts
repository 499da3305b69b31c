import { AggregatorRegistry, Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type MetricObjectWithValues, type MetricValue } from 'prom-client';

// One registry per process; every module registers its metrics here so /metrics shows them all.
export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'pss_' });

/**
 * The values a metric's labels are known to take, e.g. `{ reason: ['invalid', 'unreadable'] }`: every
 * combination is a series at zero from the start. A labelled metric has no series until its first
 * increment, and Prometheus cannot tell a series that is absent from one that never counted: a panel
 * shows "No data" and a rule sees nothing where both should see 0 (issue 33).
 */
export type KnownLabels = Record<string, readonly string[]>;

/** Every combination of the known values, as label sets. */
export function labelSets(known: KnownLabels): Record<string, string>[] {
  return Object.entries(known).reduce<Record<string, string>[]>(
    (sets, [name, values]) => sets.flatMap((set) => values.map((value) => ({ ...set, [name]: value }))),
    [{}],
  );
}

/**
 * Makes each known label set a series, at zero unless it already has a value: counters and gauges are
 * added 0 (a value already counted stays), a histogram's set is zeroed only when it has none yet.
 */
export function startAtZero(metric: Counter<string> | Gauge<string> | Histogram<string>, known: KnownLabels): void {
  for (const labels of labelSets(known)) {
    if (metric instanceof Histogram) {
      if (!HISTOGRAM_SETS.has(metric)) HISTOGRAM_SETS.set(metric, new Set());
      const seen = HISTOGRAM_SETS.get(metric) as Set<string>;
      const key = JSON.stringify(Object.entries(labels).sort());
      if (!seen.has(key)) metric.zero(labels);
      seen.add(key);
    } else {
      metric.inc(labels, 0);
    }
  }
}

/** The label sets startAtZero gave each histogram, so a second call (a second instance in one process) never zeroes one again. */
const HISTOGRAM_SETS = new WeakMap<Histogram<string>, Set<string>>();

export function counter(name: string, help: string, labelNames: string[] = [], known?: KnownLabels): Counter<string> {
  const metric = (registry.getSingleMetric(name) as Counter<string> | undefined) ?? new Counter({ name, help, labelNames, registers: [registry] });
  if (known) startAtZero(metric, known);
  return metric;
}

export function gauge(name: string, help: string, labelNames: string[] = [], known?: KnownLabels): Gauge<string> {
  const metric = (registry.getSingleMetric(name) as Gauge<string> | undefined) ?? new Gauge({ name, help, labelNames, registers: [registry] });
  if (known) startAtZero(metric, known);
  return metric;
}

export function histogram(name: string, help: string, labelNames: string[] = [], buckets?: number[], known?: KnownLabels): Histogram<string> {
  const metric =
    (registry.getSingleMetric(name) as Histogram<string> | undefined) ??
    new Histogram({ name, help, labelNames, registers: [registry], ...(buckets ? { buckets } : {}) });
  if (known) startAtZero(metric, known);
  return metric;
}

type MetricsSnapshot = MetricObjectWithValues<MetricValue<string>>[];

/** The latest metrics of each worker thread (platform/role-workers.ts), by worker. */
const workerMetrics = new Map<string, MetricsSnapshot>();

/** The process-wide metrics (CPU, memory, event loop) a worker would report again: the main thread's stand. */
const PROCESS_WIDE = /^pss_(process|nodejs)_/;

/** What a worker thread sends of its registry: its own metrics, without the process-wide ones. */
export async function workerSnapshot(): Promise<MetricsSnapshot> {
  return (await registry.getMetricsAsJSON()).filter((m) => !PROCESS_WIDE.test(m.name));
}

/** Keeps a worker's latest report; a stopped worker's stays, since a process's counters only grow. */
export function setWorkerMetrics(worker: string, snapshot: MetricsSnapshot): void {
  workerMetrics.set(worker, snapshot);
}

/** This process's metrics: the main thread's, with its workers' latest (counters and histograms summed). */
export async function processMetrics(): Promise<Registry> {
  if (workerMetrics.size === 0) return registry;
  return AggregatorRegistry.aggregate([await registry.getMetricsAsJSON(), ...workerMetrics.values()]);
}

/** One counter's value summed over its label sets, across the main thread and the workers' latest reports. */
export async function metricTotal(name: string): Promise<number> {
  const sum = (values: readonly { value: number }[]) => values.reduce((total, v) => total + v.value, 0);
  let total = sum((await registry.getSingleMetric(name)?.get())?.values ?? []);
  for (const snapshot of workerMetrics.values()) total += sum(snapshot.find((m) => m.name === name)?.values ?? []);
  return total;
}
