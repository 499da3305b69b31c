// Outages of ingest feeds in Postgres (migration 0027, docs/operations.md "Feed silence"): the ingest
// instance that watches a feed opens one when the feed falls silent and closes it when the feed is back;
// the zone processors (every worker thread of every instance) read them, so the AIS-gap rule does not
// count the vessels the feed carried as dark. Postgres rather than a Kafka topic: every worker already
// holds a pool, the rows outlive restarts and rebalances (a new owner of a partition reads them at once),
// and nothing orders a topic of outages against the positions anyway.
import type { Pool } from '../postgres.ts';

/** An outage as the AIS-gap rule measures it: in report (event) time, the clock of the positions. */
export interface FeedOutage {
  /** Report time of the feed's last report before the silence. */
  silent_from: number;
  /** Report time of its first report after it; Infinity while it is still silent. */
  resumed_at: number;
}

/**
 * `silentFrom` is the receipt time of the feed's last report (the health model's clock), `reportedUntil`
 * that report's own time (the AIS-gap rule's clock; absent when the feed carried no position).
 */
export async function openFeedOutage(pool: Pool, feed: string, silentFrom: number, reportedUntil?: number): Promise<void> {
  await pool.query('INSERT INTO feed_outages (feed, silent_from, reported_until) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [feed, new Date(silentFrom), reportedUntil === undefined ? null : new Date(reportedUntil)]);
}

/** Closes every open outage of the feed that began before `resumedAt` (one left open by an instance that crashed too). */
export async function closeFeedOutages(pool: Pool, feed: string, resumedAt: number, reportedAgain?: number): Promise<void> {
  await pool.query('UPDATE feed_outages SET resumed_at = $2, reported_again = $3 WHERE feed = $1 AND resumed_at IS NULL AND silent_from < $2', [feed, new Date(resumedAt), reportedAgain === undefined ? null : new Date(reportedAgain)]);
}

/**
 * The latest outage of each feed that is open or ended within `withinMs` (wall clock), in report time;
 * an outage whose report times are not known (no position before or after it) in receipt time.
 */
export async function recentFeedOutages(pool: Pool, withinMs: number): Promise<Map<string, FeedOutage>> {
  const { rows } = await pool.query<{ feed: string; silent_from: Date; resumed_at: Date | null }>(
    `SELECT DISTINCT ON (feed) feed, coalesce(reported_until, silent_from) AS silent_from,
            CASE WHEN resumed_at IS NULL THEN NULL ELSE coalesce(reported_again, resumed_at) END AS resumed_at
       FROM feed_outages
      WHERE resumed_at IS NULL OR resumed_at > now() - make_interval(secs => $1::double precision / 1000)
      ORDER BY feed, feed_outages.silent_from DESC`,
    [withinMs],
  );
  return new Map(rows.map((r) => [r.feed, { silent_from: r.silent_from.getTime(), resumed_at: r.resumed_at === null ? Number.POSITIVE_INFINITY : r.resumed_at.getTime() }]));
}
