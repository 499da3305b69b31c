/**
 * The feed clock: one answer, in event time, to "how long has this vessel been silent while its feed was
 * carrying other vessels' reports". A feed is the ingest source that carried a report (the position's
 * `source`: a TCP/UDP source, an HTTP credential, a replay); a vessel's feed is the source of its last report.
 *
 * Per feed the clock knows how far the feed has carried (its newest report time, over every partition
 * this member reads) and the stretches it carried nothing (`Quiet`): a report coming more than the feed
 * silence limit after the feed's newest, an outage the ingest recorded, or, before this member first
 * heard the feed, everything (it cannot know). A vessel's silence counts only outside those stretches, so
 * an outage of the feed suppresses exactly the part of a silence it covers, and a silence before it still
 * counts. Nothing here reads the wall clock: the same reports give the same gaps, live or replayed.
 */
export interface Quiet {
  from: number;
  /** Infinity while the feed is still silent. */
  to: number;
  /**
   * The vessel whose reports bound the stretch at both ends, when one did: all that was seen of the feed
   * was that vessel's own silence (say it is alone of its feed on this member's partitions), which is no
   * evidence of a feed outage for that vessel, nor one to announce.
   */
  by?: number;
}

export interface FeedClock {
  /** Newest report time each feed carried. */
  carried: Map<string, number>;
  /** The vessel of each feed's newest report, when known. */
  carriedBy: Map<string, number | undefined>;
  /** The stretches each feed carried nothing, sorted and disjoint. */
  quiet: Map<string, Quiet[]>;
}

export function newFeedClock(): FeedClock {
  return { carried: new Map(), carriedBy: new Map(), quiet: new Map() };
}

/**
 * A vessel's last report lies a few seconds before the feed's last one before an outage (the feed's
 * newest report is another vessel's): a silence that short before a stretch counts as part of it.
 */
export const QUIET_SLACK_MS = 5_000;

/**
 * A report of `feed` dated `t`. Returns the quiet stretch it ends when it comes more than `silenceMs`
 * after the feed's newest report. A report dated inside a recorded stretch (one partition read behind the
 * others) proves the feed was carrying then: the stretch is split and parts no longer than `silenceMs`
 * are dropped, so the stretches depend on which reports exist, not on the order they are read in.
 */
export function carry(clock: FeedClock, feed: string, t: number, silenceMs: number, vessel?: number): Quiet | undefined {
  const newest = clock.carried.get(feed);
  if (newest === undefined) {
    // First heard by this member (a start or rebalance): how long the feed was out before is not known.
    clock.carried.set(feed, t);
    clock.carriedBy.set(feed, vessel);
    clock.quiet.set(feed, [{ from: Number.NEGATIVE_INFINITY, to: t }]);
    return undefined;
  }
  if (t > newest) {
    const before = clock.carriedBy.get(feed);
    clock.carried.set(feed, t);
    clock.carriedBy.set(feed, vessel);
    if (t - newest <= silenceMs) return undefined;
    const stretch: Quiet = vessel !== undefined && before === vessel ? { from: newest, to: t, by: vessel } : { from: newest, to: t };
    (clock.quiet.get(feed) as Quiet[]).push(stretch);
    return stretch;
  }
  fill(clock.quiet.get(feed) as Quiet[], t, silenceMs);
  return undefined;
}

/** The feed carried a report dated `t`: no stretch can contain it. */
function fill(stretches: Quiet[], t: number, silenceMs: number): void {
  const i = stretches.findIndex((s) => s.from < t && t < s.to);
  if (i < 0) return;
  const s = stretches[i] as Quiet;
  // Each part now ends or begins at another vessel's report.
  const parts = [{ from: s.from, to: t }, { from: t, to: s.to }].filter((p) => p.to - p.from > silenceMs);
  stretches.splice(i, 1, ...parts);
}

/**
 * The instant a silence that began at `lastSeen` passes `limitMs`, counting only the time outside the
 * quiet stretches (any order, may overlap); Infinity while a stretch it needs has not ended.
 */
export function limitPassedAt(stretches: Iterable<Quiet>, lastSeen: number, limitMs: number): number {
  const sorted = [...stretches].filter((s) => s.to > lastSeen).sort((a, b) => a.from - b.from);
  let at = lastSeen;
  let left = limitMs;
  for (const s of sorted) {
    if (s.to <= at) continue;
    if (s.from - at > QUIET_SLACK_MS) {
      if (s.from - at >= left) break;
      left -= s.from - at;
    }
    at = s.to;
    if (at === Number.POSITIVE_INFINITY) return at;
  }
  return at + left;
}
