import { describe, expect, it } from 'vitest';
import { evaluateGroupLag, type LagSample } from '../../../../platform/kafka/lag-status.ts';

/** One partition's readings, 10 s apart: [committed, end] per sample. */
function partition(readings: [number | null, number][], p = 0, topic = 't', startAt = 0): LagSample[] {
  return readings.map(([committed, end], i) => ({ topic, partition: p, at: startAt + i * 10_000, committed, end }));
}

describe('evaluateGroupLag (Burrow-style rules over a window of 5 samples)', () => {
  it.each<[string, [number | null, number][], 'ok' | 'degraded' | 'down', RegExp]>([
    ['consuming with a steady lag is ok: lag alone is not a problem', [[100, 150], [150, 200], [200, 250], [250, 300], [300, 350]], 'ok', /total lag 50/],
    ['a lag that falls back somewhere in the window is ok', [[100, 150], [150, 210], [200, 240], [260, 300], [300, 360]], 'ok', /total lag 60/],
    ['caught up (lag 0) in one sample of the window is ok', [[100, 100], [100, 150], [100, 200], [100, 250], [100, 300]], 'ok', /total lag 200/],
    ['fewer samples than the window are not judged', [[100, 150], [100, 200], [100, 250]], 'ok', /total lag 150/],
    ['no committed offset yet is not judged', [[null, 10], [null, 20], [null, 30], [null, 40], [null, 50]], 'ok', /./],
    ['offset standing still with the lag unchanged (held records, nothing new) is ok', [[100, 120], [100, 120], [100, 120], [100, 120], [100, 120]], 'ok', /total lag 20/],
    ['offset standing still while the lag grows is stalled: degraded', [[100, 150], [100, 200], [100, 250], [100, 300], [100, 350]], 'degraded', /t\/0 stalled: committed offset 100 unmoved for 40 s while the lag grew 50 -> 250/],
    ['the lag growing at every sample though offsets are committed is falling behind: degraded', [[100, 150], [110, 200], [120, 250], [130, 300], [140, 350]], 'degraded', /falling behind: the lag grew at every sample 50 -> 210/],
    ['the committed offset going backwards is rewound: degraded', [[100, 150], [120, 170], [60, 190], [80, 200], [100, 210]], 'degraded', /rewound/],
  ])('%s', (_name, readings, status, reason) => {
    const result = evaluateGroupLag(partition(readings));
    expect(result.status).toBe(status);
    expect(result.reason).toMatch(reason);
  });

  it('a stall lasting downAfterMs is down (Burrow STOP), judged over every sample given', () => {
    const readings: [number, number][] = Array.from({ length: 31 }, (_, i) => [100, 150 + i * 10]);
    expect(evaluateGroupLag(partition(readings), { windowSamples: 5, downAfterMs: 300_000 })).toMatchObject({ status: 'down', reason: /unmoved for 300 s/ });
    expect(evaluateGroupLag(partition(readings.slice(0, 30)), { windowSamples: 5, downAfterMs: 300_000 })).toMatchObject({ status: 'degraded', reason: /unmoved for 290 s/ });
  });

  it('the stall is counted from when the offset last moved, not from the first sample', () => {
    const readings: [number, number][] = [[50, 60], [60, 70], ...Array.from({ length: 10 }, (_, i): [number, number] => [100, 150 + i * 10])];
    expect(evaluateGroupLag(partition(readings), { windowSamples: 5, downAfterMs: 90_000 })).toMatchObject({ status: 'down', reason: /unmoved for 90 s/ });
    expect(evaluateGroupLag(partition(readings), { windowSamples: 5, downAfterMs: 100_000 })).toMatchObject({ status: 'degraded' });
  });

  it('the group is its worst partition, and the reason names the partitions that decided it', () => {
    const samples = [
      ...partition([[100, 150], [150, 200], [200, 250], [250, 300], [300, 350]], 0),
      ...partition([[10, 20], [10, 30], [10, 40], [10, 50], [10, 60]], 1),
      ...partition([[10, 20], [10, 30], [10, 40], [10, 50], [10, 60]], 0, 'u'),
    ];
    const result = evaluateGroupLag(samples.reverse());
    expect(result.status).toBe('degraded');
    expect(result.reason).toMatch(/^t\/1 stalled: .*; u\/0 stalled: /);
    expect(result.reason).not.toMatch(/t\/0/);
  });

  it('no samples is ok, with nothing judged', () => {
    expect(evaluateGroupLag([])).toEqual({ status: 'ok', reason: 'no partitions sampled yet' });
  });
});
