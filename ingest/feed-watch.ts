// Feed silence (issue 25, docs/operations.md "Feed silence"): when each ingest feed (an AIS source: a TCP
// or UDP source, an HTTP ingest credential) was last heard, and how long a silence its own rate makes
// unusual. Pure: the clock is passed in; ingest/feed-health.ts reports it and records the outages.

export interface FeedSilenceLimits {
  /** A fixed limit for every feed; 0 learns one per feed. */
  fixedMs: number;
  minMs: number;
  maxMs: number;
}

/** Reports a feed needs before its learned rate is trusted (the floor applies until then). */
const LEARN_AFTER = 20;
/** A silence of this many mean intervals is unusual. */
const INTERVALS = 10;
/** Weight of the newest interval in the running mean (about the last 50 count). */
const ALPHA = 0.02;

interface FeedState {
  last: number;
  reports: number;
  meanGapMs: number;
  /** When its current silence began (its last report), once the silence passed the limit. */
  silentFrom: number | undefined;
  /** The outage of this feed still open in Postgres as far as this instance knows, and when the feed came back. */
  resumedAt: number | undefined;
  /** Report (event) time of the newest report, and of the first report after the feed came back. */
  lastReported: number | undefined;
  resumedReported: number | undefined;
}

export interface FeedStatus {
  feed: string;
  silent: boolean;
  lastAt: number;
  /** Report time of the feed's newest report: where an outage begins on the clock AIS gaps are measured by. */
  lastReportedAt: number | undefined;
  limitMs: number;
  learned: boolean;
}

export class FeedWatch {
  readonly #feeds = new Map<string, FeedState>();

  constructor(private readonly limits: FeedSilenceLimits) {}

  /** A report of `feed` received at `at`, dated `reportedAt` (positions) by its sender. */
  heard(feed: string, at: number, reportedAt?: number): void {
    const state = this.#feeds.get(feed);
    if (state === undefined) {
      // First heard since this instance started: an outage left open by an earlier instance ends here.
      this.#feeds.set(feed, { last: at, reports: 1, meanGapMs: 0, silentFrom: undefined, resumedAt: at, lastReported: reportedAt, resumedReported: reportedAt });
      return;
    }
    if (reportedAt !== undefined) {
      if (state.resumedAt !== undefined && state.resumedReported === undefined) state.resumedReported = reportedAt;
      if (reportedAt > (state.lastReported ?? Number.NEGATIVE_INFINITY)) state.lastReported = reportedAt;
    }
    if (at <= state.last) {
      state.reports++;
      return;
    }
    const gap = at - state.last;
    if (state.silentFrom !== undefined) {
      // Back after an outage: the gap says nothing about its rate.
      state.silentFrom = undefined;
      state.resumedAt = at;
      state.resumedReported = reportedAt;
    } else {
      state.meanGapMs = state.reports < 2 ? gap : state.meanGapMs + ALPHA * (gap - state.meanGapMs);
    }
    state.last = at;
    state.reports++;
  }

  limitOf(feed: string): number {
    if (this.limits.fixedMs > 0) return this.limits.fixedMs;
    const state = this.#feeds.get(feed);
    if (state === undefined || state.reports < LEARN_AFTER) return this.limits.minMs;
    return Math.min(this.limits.maxMs, Math.max(this.limits.minMs, Math.round(INTERVALS * state.meanGapMs)));
  }

  /** Every feed heard since start, as of `now`; a feed silent past its limit starts an outage from its last report. */
  statuses(now: number): FeedStatus[] {
    return [...this.#feeds].map(([feed, state]) => {
      const limitMs = this.limitOf(feed);
      const silent = now - state.last > limitMs;
      if (silent && state.silentFrom === undefined) state.silentFrom = state.last;
      return { feed, silent, lastAt: state.last, lastReportedAt: state.lastReported, limitMs, learned: this.limits.fixedMs === 0 && state.reports >= LEARN_AFTER };
    });
  }

  /** The feed came back (or was first heard) at this time and the outage it may have left open is not closed yet. */
  resumedAt(feed: string): number | undefined {
    return this.#feeds.get(feed)?.resumedAt;
  }

  /** Report time of the first report since the feed came back (or was first heard), if it was a position. */
  resumedReportedAt(feed: string): number | undefined {
    return this.#feeds.get(feed)?.resumedReported;
  }

  /** The open outage of the feed up to `at` was closed in Postgres. */
  closed(feed: string, at: number): void {
    const state = this.#feeds.get(feed);
    if (state !== undefined && state.resumedAt === at) {
      state.resumedAt = undefined;
      state.resumedReported = undefined;
    }
  }
}
