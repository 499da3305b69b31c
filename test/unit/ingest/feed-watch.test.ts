import { describe, expect, it } from 'vitest';
import { FeedWatch } from '../../../ingest/feed-watch.ts';

const T0 = 1_800_000_000_000;

describe('FeedWatch', () => {
  it('uses the floor until a feed\'s rate is learned, then ten times its mean interval within the bounds', () => {
    const watch = new FeedWatch({ fixedMs: 0, minMs: 5_000, maxMs: 60_000 });
    watch.heard('north', T0);
    expect(watch.limitOf('north')).toBe(5_000);
    for (let i = 1; i < 40; i++) watch.heard('north', T0 + i * 2_000);
    expect(watch.limitOf('north')).toBe(20_000);
    for (let i = 0; i < 300; i++) watch.heard('slow', T0 + i * 30_000);
    expect(watch.limitOf('slow')).toBe(60_000);
  });

  it('is silent past its limit from its last report, and back at its next report', () => {
    const watch = new FeedWatch({ fixedMs: 3_000, minMs: 1_000, maxMs: 10_000 });
    watch.heard('north', T0);
    watch.closed('north', T0);
    expect(watch.resumedAt('north')).toBeUndefined();
    expect(watch.statuses(T0 + 3_000)[0]).toMatchObject({ feed: 'north', silent: false });
    expect(watch.statuses(T0 + 3_001)[0]).toMatchObject({ feed: 'north', silent: true, lastAt: T0, limitMs: 3_000 });
    watch.heard('north', T0 + 60_000);
    expect(watch.statuses(T0 + 60_001)[0]).toMatchObject({ silent: false });
    expect(watch.resumedAt('north')).toBe(T0 + 60_000);
    watch.closed('north', T0 + 60_000);
    expect(watch.resumedAt('north')).toBeUndefined();
  });

  it('does not learn the outage itself as the feed\'s rate', () => {
    const watch = new FeedWatch({ fixedMs: 0, minMs: 1_000, maxMs: 600_000 });
    for (let i = 0; i < 30; i++) watch.heard('north', T0 + i * 1_000);
    const before = watch.limitOf('north');
    watch.statuses(T0 + 29_000 + 300_000);
    watch.heard('north', T0 + 29_000 + 300_000);
    expect(watch.limitOf('north')).toBe(before);
  });

  it('keeps the report times of an outage\'s ends, the clock AIS gaps are measured by (a batch of older reports)', () => {
    const watch = new FeedWatch({ fixedMs: 2_000, minMs: 1_000, maxMs: 10_000 });
    // A batch received at once: reports of the last quarter of an hour.
    for (let m = 15; m >= 1; m--) watch.heard('http:key', T0, T0 - m * 60_000);
    watch.closed('http:key', T0);
    expect(watch.resumedReportedAt('http:key')).toBeUndefined();
    expect(watch.statuses(T0 + 2_001)[0]).toMatchObject({ silent: true, lastAt: T0, lastReportedAt: T0 - 60_000 });
    // The next batch: its first report's time is where the outage ends on that clock.
    watch.heard('http:key', T0 + 600_000, T0 + 300_000);
    watch.heard('http:key', T0 + 600_000, T0 + 540_000);
    expect(watch.resumedAt('http:key')).toBe(T0 + 600_000);
    expect(watch.resumedReportedAt('http:key')).toBe(T0 + 300_000);
    expect(watch.statuses(T0 + 600_001)[0]).toMatchObject({ silent: false, lastReportedAt: T0 + 540_000 });
  });
});
