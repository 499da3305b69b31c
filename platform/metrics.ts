import { AggregatorRegistry, Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type MetricObjectWithValues, type MetricValue } from 'prom-client';

// One registry per process; every module registers its metrics here so /metrics shows them all.
export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'pss_' });

export function counter(name: string, help: string, labelNames: string[] = []): Counter<string> {
  return (registry.getSingleMetric(name) as Counter<string> | undefined) ?? new Counter({ name, help, labelNames, registers: [registry] });
}

export function gauge(name: string, help: string, labelNames: string[] = []): Gauge<string> {
  return (registry.getSingleMetric(name) as Gauge<string> | undefined) ?? new Gauge({ name, help, labelNames, registers: [registry] });
}

export function histogram(name: string, help: string, labelNames: string[] = [], buckets?: number[]): Histogram<string> {
  return (
    (registry.getSingleMetric(name) as Histogram<string> | undefined) ??
    new Histogram({ name, help, labelNames, registers: [registry], ...(buckets ? { buckets } : {}) })
  );
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
