import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { labelSets, startAtZero } from '../../../platform/metrics.ts';

describe('known label sets at zero (issue 33)', () => {
  it('are every combination of the known values', () => {
    expect(labelSets({ kind: ['a', 'b'], outcome: ['done', 'retry', 'lost'] })).toEqual([
      { kind: 'a', outcome: 'done' }, { kind: 'a', outcome: 'retry' }, { kind: 'a', outcome: 'lost' },
      { kind: 'b', outcome: 'done' }, { kind: 'b', outcome: 'retry' }, { kind: 'b', outcome: 'lost' },
    ]);
    expect(labelSets({ kind: [] })).toEqual([]);
  });

  it('are series on /metrics before first use, and a value already there stays', async () => {
    const registry = new Registry();
    const counter = new Counter({ name: 't_total', help: 't', labelNames: ['reason'], registers: [registry] });
    const gauge = new Gauge({ name: 't_gauge', help: 't', labelNames: ['source'], registers: [registry] });
    const histogram = new Histogram({ name: 't_seconds', help: 't', labelNames: ['kind'], buckets: [1], registers: [registry] });
    counter.inc({ reason: 'b' }, 2);
    gauge.set({ source: 'x' }, 1);
    startAtZero(counter, { reason: ['a', 'b'] });
    startAtZero(gauge, { source: ['x', 'y'] });
    startAtZero(histogram, { kind: ['k'] });
    histogram.observe({ kind: 'k' }, 0.5);
    startAtZero(histogram, { kind: ['k'] });
    const text = await registry.metrics();
    expect(text).toContain('t_total{reason="a"} 0\n');
    expect(text).toContain('t_total{reason="b"} 2\n');
    expect(text).toContain('t_gauge{source="x"} 1\n');
    expect(text).toContain('t_gauge{source="y"} 0\n');
    expect(text).toContain('t_seconds_count{kind="k"} 1\n');
  });
});
