import { iso, type RuleIntent } from './rule-intent.ts';

/**
 * Feed (receiver) silence, per Kafka partition of ais.positions. Vessels are spread over partitions by
 * MMSI, so a partition goes quiet only when the feed does: when a partition's next report lies more
 * than `feed_silence_seconds` (event time) after its watermark, the feed was out meanwhile. That is one
 * `system_health_change` event, and vessel silences are counted from the feed's return (ais-gap-rule.ts).
 *
 * Limit: during the outage itself event time stands still, so nothing is detected until the feed
 * returns (no vessel gaps either, which is the point). Partitions that stop in the same minute share
 * one event id, so a feed-wide stop is one event, whatever the instance that sees it. Vessels already
 * silent past their limit when the feed stopped are judged as of that moment before the outage is
 * recorded (evaluate-batch.ts), so their gaps do not depend on whether housekeeping ran before it.
 */
export interface Outage {
  silent_from: number;
  resumed_at: number;
}

export interface FeedState {
  /** Newest report time per partition. */
  watermarks: Map<number, number>;
  /** The latest outage per partition; a partition first seen by this instance counts as just resumed. */
  outages: Map<number, Outage>;
  /** The partition each vessel's reports arrive on (keyed by MMSI): whose watermark judges its silence. */
  partitionOf: Map<number, number>;
  /** The feed (`source`) of each vessel's latest report. */
  sourceOf: Map<number, string>;
  /**
   * Outages of the ingest feeds (wall clock of the ingest instance that watched them, read from Postgres:
   * platform/health/feed-outages.ts), resumed_at Infinity while still silent. A feed can fall silent while
   * others keep its partitions' watermarks moving: its vessels are then not dark either.
   */
  sourceOutages: Map<string, Outage>;
}

export function newFeedState(sourceOutages: Map<string, Outage> = new Map()): FeedState {
  return { watermarks: new Map(), outages: new Map(), partitionOf: new Map(), sourceOf: new Map(), sourceOutages };
}

/** Report times may run a little ahead of the receipt times a feed outage is measured in. */
const FEED_CLOCK_SLACK_MS = 5_000;

/**
 * Where a vessel's silence counts from, given its partition's outage and its feed's: the later of the
 * two. While its feed is still silent that is never (Infinity): no ais_gap. A vessel whose feed is not
 * known (not heard since this member took its partition) is judged against every feed outage, so a
 * rebalance during an outage raises no false gap (it may hold back a real one until the vessel reports).
 */
export function vesselSilentFrom(feed: FeedState, mmsi: number, lastSeenAt: number, partitionOutage: Outage | undefined): number {
  let from = silentFrom(lastSeenAt, partitionOutage);
  const source = feed.sourceOf.get(mmsi);
  const outages = source === undefined ? feed.sourceOutages.values() : [feed.sourceOutages.get(source)];
  for (const outage of outages) {
    if (outage !== undefined && lastSeenAt <= outage.silent_from + FEED_CLOCK_SLACK_MS) from = Math.max(from, outage.resumed_at);
  }
  return from;
}

/** A report of a feed whose outage is still open here: the feed is back (its ingest says so a little later). */
export function observeSource(feed: FeedState, source: string, t: number): void {
  const outage = feed.sourceOutages.get(source);
  if (outage !== undefined && outage.resumed_at === Number.POSITIVE_INFINITY && t > outage.silent_from + FEED_CLOCK_SLACK_MS) {
    feed.sourceOutages.set(source, { silent_from: outage.silent_from, resumed_at: t });
  }
}

/** Whether an ingest feed's outage explains a partition's: then the feed's own system_health_change said it. */
export function coveredBySourceOutage(feed: FeedState, outage: Outage): boolean {
  for (const o of feed.sourceOutages.values()) {
    if (o.silent_from <= outage.silent_from + FEED_CLOCK_SLACK_MS && o.resumed_at >= outage.resumed_at - FEED_CLOCK_SLACK_MS) return true;
  }
  return false;
}

/** Advances a partition's watermark with a report; returns the outage it ends, if any. */
export function observeReport(feed: FeedState, partition: number, t: number, silenceSeconds: number): Outage | undefined {
  const watermark = feed.watermarks.get(partition);
  if (watermark !== undefined && t <= watermark) return undefined;
  feed.watermarks.set(partition, t);
  if (watermark === undefined) {
    // After a start or rebalance we cannot know how long the feed was out: count silences from here.
    feed.outages.set(partition, { silent_from: t, resumed_at: t });
    return undefined;
  }
  if (t - watermark <= silenceSeconds * 1000) return undefined;
  const outage = { silent_from: watermark, resumed_at: t };
  feed.outages.set(partition, outage);
  return outage;
}

/** Where a vessel's silence counts from: its last report, or the feed's return if the feed was out after it. */
export function silentFrom(lastSeenAt: number, outage: Outage | undefined): number {
  return outage !== undefined && lastSeenAt <= outage.silent_from ? Math.max(lastSeenAt, outage.resumed_at) : lastSeenAt;
}

export function feedSilenceIntent(outage: Outage, silenceSeconds: number): RuleIntent {
  const minute = Math.floor(outage.silent_from / 60_000) * 60_000;
  const seconds = Math.round((outage.resumed_at - outage.silent_from) / 1000);
  return {
    key: `ais_feed_silence:${iso(minute)}`,
    type: 'system_health_change',
    category: 'system',
    severity: 'high',
    timestamp: iso(outage.resumed_at),
    title: `AIS feed silent for ${seconds} s`,
    description: `No position report from ${iso(outage.silent_from)} to ${iso(outage.resumed_at)} (more than ${silenceSeconds} s): a receiver or feed outage, not vessels going dark. AIS gaps are counted from the feed's return.`,
    location: { lat: 0, lng: 0 },
    requires_action: true,
    metadata: { component: 'ais_feed', status: 'down', silent_from: iso(outage.silent_from), resumed_at: iso(outage.resumed_at), silence_seconds: seconds },
  };
}
