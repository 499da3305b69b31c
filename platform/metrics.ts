import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

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
