// The feeds' clocks shared between zone members, and the feed outages in report time (migration 0031):
// what a member writes and reads in Postgres, concurrently with another member.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeFeedOutages, openFeedOutage, recentFeedOutages } from '../../../../platform/health/feed-outages.ts';
import { createPool, migrate, type Pool } from '../../../../platform/postgres.ts';
import { sharedFeedClocks, shareFeedClocks } from '../../../../processors/maritime/store/feed-clock-store.ts';
import { testConfig, testLog, unique } from '../../../support/stack.ts';

const T0 = Date.parse('2026-11-28T06:00:00Z');

describe('feed clocks and outages in Postgres', () => {
  let pool: Pool;
  beforeAll(async () => {
    await migrate(testConfig().databaseUrl, testLog);
    pool = createPool(testConfig().databaseUrl, 4);
  });
  afterAll(async () => {
    await pool?.end();
  });

  it('keeps each feed\'s newest report time whoever writes it and in whatever order', async () => {
    const [north, south] = [unique('north'), unique('south')];
    // Two members at once, one behind the other on north.
    await Promise.all([shareFeedClocks(pool, new Map([[north, T0 + 60_000], [south, T0]])), shareFeedClocks(pool, new Map([[north, T0 + 30_000]]))]);
    await shareFeedClocks(pool, new Map([[north, T0 + 10_000]]));
    await shareFeedClocks(pool, new Map());
    const shared = await sharedFeedClocks(pool, 60_000);
    expect(shared.get(north)).toBe(T0 + 60_000);
    expect(shared.get(south)).toBe(T0);
    await shareFeedClocks(pool, new Map([[south, T0 + 5_000]]));
    expect((await sharedFeedClocks(pool, 60_000)).get(south)).toBe(T0 + 5_000);
  });

  it('gives an outage in the report times of the feed\'s last report before it and first after it', async () => {
    const [batch, old] = [unique('http:batch'), unique('tcp:old')];
    const received = Date.now() - 5_000;
    // A batch of reports up to ten minutes old, received at once, then silence.
    await openFeedOutage(pool, batch, received, received - 600_000);
    expect((await recentFeedOutages(pool, 60_000)).get(batch)).toEqual({ silent_from: received - 600_000, resumed_at: Number.POSITIVE_INFINITY });
    await closeFeedOutages(pool, batch, received + 4_000, received - 300_000);
    expect((await recentFeedOutages(pool, 60_000)).get(batch)).toEqual({ silent_from: received - 600_000, resumed_at: received - 300_000 });
    // Without report times (a feed that carried no position): its receipt times.
    await openFeedOutage(pool, old, received);
    await closeFeedOutages(pool, old, received + 2_000);
    expect((await recentFeedOutages(pool, 60_000)).get(old)).toEqual({ silent_from: received, resumed_at: received + 2_000 });
  });
});
