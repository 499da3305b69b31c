import { describe, expect, it } from 'vitest';
import { coveredBySourceOutage, newFeedState, observeSource, vesselSilentFrom } from '../../../../../processors/maritime/rules/feed-silence.ts';

const T0 = Date.parse('2026-11-26T06:00:00Z');

describe('a vessel\'s silence against its feed\'s outage', () => {
  it('never counts while its feed is silent, and counts from the feed\'s return afterwards', () => {
    const feed = newFeedState(new Map([['north', { silent_from: T0 + 10_000, resumed_at: Number.POSITIVE_INFINITY }]]));
    feed.sourceOf.set(1, 'north');
    feed.sourceOf.set(2, 'south');
    expect(vesselSilentFrom(feed, 1, T0 + 9_000, undefined)).toBe(Number.POSITIVE_INFINITY);
    expect(vesselSilentFrom(feed, 2, T0 + 9_000, undefined)).toBe(T0 + 9_000);
    observeSource(feed, 'north', T0 + 600_000);
    expect(vesselSilentFrom(feed, 1, T0 + 9_000, undefined)).toBe(T0 + 600_000);
    // Heard after the outage: its own last report counts.
    expect(vesselSilentFrom(feed, 1, T0 + 700_000, undefined)).toBe(T0 + 700_000);
  });

  it('judges a vessel whose feed is not known against every feed outage', () => {
    const feed = newFeedState(new Map([['north', { silent_from: T0, resumed_at: Number.POSITIVE_INFINITY }]]));
    expect(vesselSilentFrom(feed, 7, T0 - 1_000, undefined)).toBe(Number.POSITIVE_INFINITY);
  });

  it('leaves a partition outage the feed outage explains to the feed\'s own event', () => {
    const feed = newFeedState(new Map([['north', { silent_from: T0, resumed_at: T0 + 300_000 }]]));
    expect(coveredBySourceOutage(feed, { silent_from: T0 + 1_000, resumed_at: T0 + 300_500 })).toBe(true);
    expect(coveredBySourceOutage(feed, { silent_from: T0 + 400_000, resumed_at: T0 + 900_000 })).toBe(false);
  });
});
