import { carry, limitPassedAt, newFeedClock, type FeedClock, type Quiet } from './feed-clock.ts';
import { iso, type RuleIntent } from './rule-intent.ts';

/**
 * Feed silence as the AIS-gap rule meets it: what one member of the zone processor knows of the feeds
 * whose reports it reads, around the feed clock (feed-clock.ts). Two kinds of outage, both in event time:
 *  - recorded by the ingest that watched the feed (platform/health/feed-outages.ts): from the report time
 *    of the feed's last report before it to that of its first after; that ingest already said so with its
 *    own system_health_change;
 *  - seen here, for replays and feeds no ingest watched: a report of a feed more than
 *    `feed_silence_seconds` after the feed's newest. That is one `system_health_change` (`feedSilenceIntent`).
 * A vessel's silence counts only while its feed was carrying (`vesselSilentFrom`, `feedAsOf`).
 */
export interface Outage {
  silent_from: number;
  resumed_at: number;
}

export interface FeedState {
  /** The feeds' clocks over every partition this member reads. */
  clock: FeedClock;
  /** Newest report time per partition: how far each partition has been read (see `caughtUp`). */
  watermarks: Map<number, number>;
  /** The partition each vessel's reports arrive on (keyed by MMSI). */
  partitionOf: Map<number, number>;
  /** The feed (`source`) of each vessel's latest report: the feed whose clock judges its silence. */
  sourceOf: Map<number, string>;
  /**
   * The latest outage of each ingest feed (read from Postgres), in report time, resumed_at Infinity while
   * still silent.
   */
  sourceOutages: Map<string, Outage>;
  /**
   * Whether this member had read everything its partitions held when it last looked (an idle poll). Until
   * then a vessel is judged no further than its own partition has been read: while one partition catches
   * up, the feed's clock from the others would make its vessels look silent.
   */
  caughtUp: boolean;
}

export function newFeedState(sourceOutages: Map<string, Outage> = new Map()): FeedState {
  return { clock: newFeedClock(), watermarks: new Map(), partitionOf: new Map(), sourceOf: new Map(), sourceOutages, caughtUp: false };
}

/**
 * The stretches `source` carried nothing, as far as `mmsi`'s silence goes (not those its own silence alone
 * made); a vessel whose feed is not known is judged against every feed's.
 */
function quietOf(feed: FeedState, source: string | undefined, mmsi: number): Quiet[] {
  const out: Quiet[] = [];
  for (const [name, stretches] of feed.clock.quiet) if (source === undefined || name === source) out.push(...stretches.filter((q) => q.by !== mmsi));
  for (const [name, o] of feed.sourceOutages) if (source === undefined || name === source) out.push({ from: o.silent_from, to: o.resumed_at });
  return out;
}

/**
 * Where a vessel's silence counts from so that it passes `limitMs` when its feed has carried that long
 * since its last report: the last report itself, moved on by every quiet stretch of the feed before the
 * limit passes. Infinity while its feed is still silent. Without a limit, only stretches that begin at
 * the vessel's last report move it (a feed outage that took the vessel's reports with it).
 */
export function vesselSilentFrom(feed: FeedState, mmsi: number, lastSeenAt: number, limitMs = 0): number {
  return limitPassedAt(quietOf(feed, feed.sourceOf.get(mmsi), mmsi), lastSeenAt, limitMs) - limitMs;
}

/**
 * How far a vessel's silence can be judged (event time): its feed's clock, and while this member is
 * catching up no further than its own partition has been read. Undefined for a vessel not heard since
 * this member took its partition (its feed is not known).
 */
export function feedAsOf(feed: FeedState): (mmsi: number) => number | undefined {
  return (mmsi) => {
    const source = feed.sourceOf.get(mmsi);
    const carried = source === undefined ? undefined : feed.clock.carried.get(source);
    if (carried === undefined || feed.caughtUp) return carried;
    const partition = feed.partitionOf.get(mmsi);
    const read = partition === undefined ? undefined : feed.watermarks.get(partition);
    return read === undefined ? undefined : Math.min(carried, read);
  };
}

/** A report of `source` dated `t` (of vessel `mmsi`): its feed's clock moves on; returns the outage it ends, if any (seen here). */
export function observeReport(feed: FeedState, source: string, t: number, silenceSeconds: number, mmsi?: number): Outage | undefined {
  observeSource(feed, source, t);
  const stretch = carry(feed.clock, source, t, silenceSeconds * 1000, mmsi);
  return stretch === undefined ? undefined : { silent_from: stretch.from, resumed_at: stretch.to };
}

/**
 * A batch's reports, all of them before any is judged: partitions arrive in any order (one read ahead of
 * another), and a report of a feed dated inside what looked like the feed's outage proves the feed was
 * carrying then (feed-clock.ts). Returns the outages seen here that the batch leaves standing (new ones,
 * or what is left of one a report split), that more than one vessel's reports bound, and that no ingest
 * recorded (those said so themselves), each with the report that ended it: one system_health_change each.
 */
export function observeBatch<R extends { source: string; t: number; mmsi?: number }>(feed: FeedState, reports: Iterable<R>, silenceSeconds: number): { outage: Outage; report: R }[] {
  const known = new Map<string, Set<string>>();
  // Kept only to name the report that ended a new outage (rare), looked up then: nothing per report beyond
  // the push (a per-feed list copied per report once made a batch quadratic, a third of the zone processor).
  const seen: R[] = [];
  for (const report of reports) {
    if (!known.has(report.source)) known.set(report.source, new Set((feed.clock.quiet.get(report.source) ?? []).map(keyOf)));
    seen.push(report);
    observeReport(feed, report.source, report.t, silenceSeconds, report.mmsi);
  }
  const out: { outage: Outage; report: R }[] = [];
  for (const [source, before] of known) {
    for (const q of feed.clock.quiet.get(source) ?? []) {
      const outage = { silent_from: q.from, resumed_at: q.to };
      if (before.has(keyOf(q)) || !Number.isFinite(q.from) || q.by !== undefined || coveredBySourceOutage(feed, outage)) continue;
      const report = seen.find((r) => r.source === source && r.t === q.to);
      if (report !== undefined) out.push({ outage, report });
    }
  }
  return out;
}

const keyOf = (q: Quiet): string => `${q.from}/${q.to}`;

/**
 * What other members read of the feeds (`shared`: each feed's newest report time), taken in while this
 * member is caught up: a report dated then exists, so it moves the clock as a report read here would,
 * and a jump past the silence limit since this member's own newest is a quiet stretch (it cannot tell
 * whether the feed carried meanwhile; taken in every few seconds, as live, there is no such jump). Feeds
 * this member has not heard are left out: none of its vessels is judged on them.
 */
export function adoptSharedClocks(feed: FeedState, shared: ReadonlyMap<string, number>, silenceSeconds: number): void {
  for (const [source, t] of shared) if (feed.clock.carried.has(source)) carry(feed.clock, source, t, silenceSeconds * 1000);
}

/** A report of a feed whose outage is still open here: the feed is back (its ingest says so a little later). */
export function observeSource(feed: FeedState, source: string, t: number): void {
  const outage = feed.sourceOutages.get(source);
  if (outage !== undefined && outage.resumed_at === Number.POSITIVE_INFINITY && t > outage.silent_from + FEED_CLOCK_SLACK_MS) {
    feed.sourceOutages.set(source, { silent_from: outage.silent_from, resumed_at: t });
  }
}

/** Outage bounds of rows recorded before report times were (wall clock) may run a little behind report times. */
const FEED_CLOCK_SLACK_MS = 5_000;

/** Whether an ingest feed's outage explains one seen here: then the feed's own system_health_change said it. */
export function coveredBySourceOutage(feed: FeedState, outage: Outage): boolean {
  for (const o of feed.sourceOutages.values()) {
    if (o.silent_from <= outage.silent_from + FEED_CLOCK_SLACK_MS && o.resumed_at >= outage.resumed_at - FEED_CLOCK_SLACK_MS) return true;
  }
  return false;
}

/** One event per feed outage: members that see the same outage of the same feed give the same key. */
export function feedSilenceIntent(outage: Outage, silenceSeconds: number, source?: string): RuleIntent {
  const minute = Math.floor(outage.silent_from / 60_000) * 60_000;
  const seconds = Math.round((outage.resumed_at - outage.silent_from) / 1000);
  return {
    key: source === undefined ? `ais_feed_silence:${iso(minute)}` : `ais_feed_silence:${source}:${iso(minute)}`,
    type: 'system_health_change',
    category: 'system',
    severity: 'high',
    timestamp: iso(outage.resumed_at),
    title: `AIS feed ${source === undefined ? '' : `${source} `}silent for ${seconds} s`,
    description: `No position report from ${iso(outage.silent_from)} to ${iso(outage.resumed_at)} (more than ${silenceSeconds} s): a receiver or feed outage, not vessels going dark. AIS gaps do not count the outage.`,
    location: { lat: 0, lng: 0 },
    requires_action: true,
    metadata: { component: 'ais_feed', status: 'down', ...(source === undefined ? {} : { feed: source }), silent_from: iso(outage.silent_from), resumed_at: iso(outage.resumed_at), silence_seconds: seconds },
  };
}
