import { describe, expect, it } from 'vitest';
import { carry, limitPassedAt, newFeedClock } from '../../../../../processors/maritime/rules/feed-clock.ts';
import { adoptSharedClocks, feedAsOf, newFeedState, observeBatch, vesselSilentFrom } from '../../../../../processors/maritime/rules/feed-silence.ts';

const T0 = Date.parse('2026-11-28T06:00:00Z');
const S = 1_000;
const SILENCE = 300 * S;

describe('the feed clock', () => {
  it('moves with the feed\'s newest report and records a jump past the silence limit as a quiet stretch', () => {
    const clock = newFeedClock();
    expect(carry(clock, 'north', T0, SILENCE)).toBeUndefined();
    expect(carry(clock, 'north', T0 + 300 * S, SILENCE)).toBeUndefined();
    expect(carry(clock, 'north', T0 + 100 * S, SILENCE)).toBeUndefined();
    expect(clock.carried.get('north')).toBe(T0 + 300 * S);
    expect(carry(clock, 'north', T0 + 900 * S, SILENCE)).toEqual({ from: T0 + 300 * S, to: T0 + 900 * S });
    // Another feed has a clock of its own.
    expect(carry(clock, 'south', T0 + 2_000 * S, SILENCE)).toBeUndefined();
    expect(clock.carried.get('north')).toBe(T0 + 900 * S);
    // Before a member first heard a feed it cannot know whether the feed carried.
    expect(clock.quiet.get('north')).toEqual([{ from: Number.NEGATIVE_INFINITY, to: T0 }, { from: T0 + 300 * S, to: T0 + 900 * S }]);
  });

  it('gives the same stretches whatever order the feed\'s reports are read in (partitions read at different paces)', () => {
    const times = [0, 60, 120, 500, 560, 1_400, 1_460, 1_520].map((s) => T0 + s * S);
    const inOrder = newFeedClock();
    for (const t of times) carry(inOrder, 'f', t, SILENCE);
    // One partition (the odd reports) read far ahead of the other.
    const skewed = newFeedClock();
    for (const t of [times[0], times[2], times[4], times[6], times[1], times[3], times[5], times[7]]) carry(skewed, 'f', t as number, SILENCE);
    expect(skewed.quiet.get('f')).toEqual(inOrder.quiet.get('f'));
    expect(inOrder.quiet.get('f')).toEqual([{ from: Number.NEGATIVE_INFINITY, to: T0 }, { from: T0 + 120 * S, to: T0 + 500 * S }, { from: T0 + 560 * S, to: T0 + 1_400 * S }]);
  });

  it('takes in what other members read of a feed: a vessel alone of its feed here is judged on the whole feed', () => {
    const feed = newFeedState();
    carry(feed.clock, 'f', T0, SILENCE);
    feed.sourceOf.set(7, 'f');
    feed.partitionOf.set(7, 2);
    feed.watermarks.set(2, T0);
    // Read every few seconds while live: no jump, the clock moves on.
    for (let s = 2; s <= 600; s += 2) adoptSharedClocks(feed, new Map([['f', T0 + s * S]]), 300);
    expect(feed.clock.carried.get('f')).toBe(T0 + 600 * S);
    expect(feed.clock.quiet.get('f')).toEqual([{ from: Number.NEGATIVE_INFINITY, to: T0 }]);
    feed.caughtUp = true;
    expect(feedAsOf(feed)(7)).toBe(T0 + 600 * S);
    // While catching up, no further than the vessel's own partition was read.
    feed.caughtUp = false;
    expect(feedAsOf(feed)(7)).toBe(T0);
    // A jump past the silence limit since this member last looked: it cannot tell whether the feed carried.
    adoptSharedClocks(feed, new Map([['f', T0 + 1_500 * S], ['g', T0]]), 300);
    expect(feed.clock.quiet.get('f')).toEqual([{ from: Number.NEGATIVE_INFINITY, to: T0 }, { from: T0 + 600 * S, to: T0 + 1_500 * S }]);
    // A feed this member never heard is not started by others' reading.
    expect(feed.clock.carried.has('g')).toBe(false);
  });
});

describe('a jump that only one vessel\'s own silence made', () => {
  it('is no outage for that vessel, nor one to announce, but is one for the others', () => {
    // Vessel 7 is all this member reads of the feed: dark from 120 s to 720 s.
    const feed = newFeedState();
    const ended = observeBatch(feed, [0, 60, 120, 720, 780].map((s) => ({ source: 'f', t: T0 + s * S, mmsi: 7 })), 300);
    expect(ended).toEqual([]);
    expect(feed.clock.quiet.get('f')?.at(-1)).toEqual({ from: T0 + 120 * S, to: T0 + 720 * S, by: 7 });
    feed.sourceOf.set(7, 'f');
    feed.sourceOf.set(8, 'f');
    expect(vesselSilentFrom(feed, 7, T0 + 120 * S, 120 * S)).toBe(T0 + 120 * S);
    expect(vesselSilentFrom(feed, 8, T0 + 110 * S, 120 * S)).toBe(T0 + 720 * S - 10 * S);
  });
  it('becomes an outage like any other once another vessel\'s report ends it', () => {
    const feed = newFeedState();
    const ended = observeBatch(feed, [{ source: 'f', t: T0, mmsi: 7 }, { source: 'f', t: T0 + 600 * S, mmsi: 8 }], 300);
    expect(ended.map(({ outage }) => outage)).toEqual([{ silent_from: T0, resumed_at: T0 + 600 * S }]);
  });
});

describe('a batch of reports taken in whole', () => {
  const reports = (source: string, seconds: number[]) => seconds.map((s) => ({ source, t: T0 + s * S }));
  it('announces a feed outage the batch leaves standing, once, and none that its other partitions fill', () => {
    const feed = newFeedState();
    // South's partitions come in any order: its gap from 0 to 600 s is filled at 300 s.
    const ended = observeBatch(feed, [...reports('north', [0, 60, 1_000, 1_060]), ...reports('south', [0, 600]), ...reports('south', [300])], 300);
    expect(ended.map(({ outage, report }) => [report.source, outage, report.t])).toEqual([['north', { silent_from: T0 + 60 * S, resumed_at: T0 + 1_000 * S }, T0 + 1_000 * S]]);
    // Filled only in part: what is left past the limit is announced.
    const west = observeBatch(feed, [...reports('west', [0, 1_000]), ...reports('west', [100])], 300);
    expect(west.map(({ outage }) => outage)).toEqual([{ silent_from: T0 + 100 * S, resumed_at: T0 + 1_000 * S }]);
    // The next batch does not announce it again.
    expect(observeBatch(feed, reports('west', [1_010]), 300)).toEqual([]);
  });
  it('leaves an outage the ingest recorded to the ingest\'s own event', () => {
    const feed = newFeedState(new Map([['north', { silent_from: T0 + 60 * S, resumed_at: T0 + 1_000 * S }]]));
    expect(observeBatch(feed, reports('north', [0, 60, 1_000]), 300)).toEqual([]);
  });
});

describe('when a silence passes its limit, counting only the time the feed carried', () => {
  const LIMIT = 120 * S;
  it('is the last report plus the limit when the feed carried throughout', () => {
    expect(limitPassedAt([], T0, LIMIT)).toBe(T0 + LIMIT);
    expect(limitPassedAt([{ from: T0 - 600 * S, to: T0 - 60 * S }], T0, LIMIT)).toBe(T0 + LIMIT);
  });
  it('stands before an outage that begins after the limit passed', () => {
    expect(limitPassedAt([{ from: T0 + 600 * S, to: Number.POSITIVE_INFINITY }], T0, LIMIT)).toBe(T0 + LIMIT);
    expect(limitPassedAt([{ from: T0 + 120 * S, to: Number.POSITIVE_INFINITY }], T0, LIMIT)).toBe(T0 + LIMIT);
  });
  it('skips the part of the silence an outage covers and counts the parts before and after', () => {
    // 60 s before the outage, 60 s after it.
    expect(limitPassedAt([{ from: T0 + 60 * S, to: T0 + 900 * S }], T0, LIMIT)).toBe(T0 + 960 * S);
    // Two outages.
    expect(limitPassedAt([{ from: T0 + 1_000 * S, to: T0 + 1_100 * S }, { from: T0 + 60 * S, to: T0 + 900 * S }], T0, 200 * S)).toBe(T0 + 1_140 * S);
    // Overlapping stretches (the ingest's and one seen here) count once.
    expect(limitPassedAt([{ from: T0 + 60 * S, to: T0 + 900 * S }, { from: T0 + 100 * S, to: T0 + 800 * S }], T0, LIMIT)).toBe(T0 + 960 * S);
  });
  it('never passes while an outage that began within the limit is still open', () => {
    expect(limitPassedAt([{ from: T0 + 60 * S, to: Number.POSITIVE_INFINITY }], T0, LIMIT)).toBe(Number.POSITIVE_INFINITY);
  });
  it('counts a silence of a few seconds before an outage as part of it (the feed\'s last reports before it)', () => {
    expect(limitPassedAt([{ from: T0 + 4 * S, to: T0 + 900 * S }], T0, LIMIT)).toBe(T0 + 900 * S + LIMIT);
    expect(limitPassedAt([{ from: Number.NEGATIVE_INFINITY, to: T0 + 900 * S }], T0, LIMIT)).toBe(T0 + 900 * S + LIMIT);
  });
});
