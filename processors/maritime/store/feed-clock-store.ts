import type { Pool } from '../../../platform/postgres.ts';

/**
 * The feeds' clocks shared between the zone processor's members (worker threads and instances; migration
 * 0031): each member reads only some partitions of ais.positions, so it sees only part of each feed.
 * Only ever moved forward, so members writing at once, late or twice change nothing.
 */
export async function shareFeedClocks(pool: Pool, carried: ReadonlyMap<string, number>): Promise<void> {
  if (carried.size === 0) return;
  await pool.query(
    `INSERT INTO feed_clocks (feed, reported_until)
     SELECT * FROM unnest($1::text[], $2::timestamptz[])
     ON CONFLICT (feed) DO UPDATE SET reported_until = EXCLUDED.reported_until, updated_at = now()
       WHERE feed_clocks.reported_until < EXCLUDED.reported_until`,
    [[...carried.keys()], [...carried.values()].map((t) => new Date(t))],
  );
}

/** Each feed's newest report time read by any member, for feeds that moved within `withinMs` (wall clock). */
export async function sharedFeedClocks(pool: Pool, withinMs: number): Promise<Map<string, number>> {
  const { rows } = await pool.query<{ feed: string; reported_until: Date }>(
    'SELECT feed, reported_until FROM feed_clocks WHERE updated_at > now() - make_interval(secs => $1::double precision / 1000)',
    [withinMs],
  );
  return new Map(rows.map((r) => [r.feed, r.reported_until.getTime()]));
}
