import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, type Pool } from '../../../../platform/postgres.ts';
import { maintainPartitions } from '../../../../processors/vessels/partitions.ts';
import { insertPositions, partitionDays } from '../../../../processors/vessels/vessel-store.ts';
import type { PositionRow } from '../../../../processors/vessels/position-rows.ts';
import { scratchDatabase, type ScratchDatabase } from '../../../support/scratch-database.ts';

const DAY = 86_400_000;
const T0 = Date.parse('2026-03-01T12:00:00Z');
const row = (mmsi: number, at: number): PositionRow => ({ mmsi, reportedAt: at, source: 'feed', lat: 55.6, lon: 12.8, sog: 1, cog: 2, heading: 3, navStatus: 0, msgType: 1, receivedAt: at });

// Its own database: retention here drops partitions every other test of the run would see.
describe('vessel_positions day partitions', () => {
  let db: ScratchDatabase;
  let pool: Pool;
  beforeAll(async () => {
    db = await scratchDatabase('parts');
    pool = createPool(db.url, 2);
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  it('creates today and the days ahead, and rolls forward as days pass', async () => {
    expect(await maintainPartitions(pool, T0, { retentionDays: 3, ahead: 2 })).toEqual({ created: ['2026-03-01', '2026-03-02', '2026-03-03'], dropped: [], indexed: [] });
    // Again the same day: nothing to do.
    expect(await maintainPartitions(pool, T0, { retentionDays: 3, ahead: 2 })).toEqual({ created: [], dropped: [], indexed: [] });
  });

  it('routes each row into its UTC day and stores a re-sent row once', async () => {
    const rows = [row(1, Date.parse('2026-03-01T23:59:59.999Z')), row(1, Date.parse('2026-03-02T00:00:00Z')), row(2, Date.parse('2026-03-02T08:00:00.125Z'))];
    expect(await insertPositions(pool, rows)).toBe(3);
    expect(await insertPositions(pool, [...rows, rows[0]!])).toBe(0);
    const { rows: placed } = await pool.query<{ part: string; n: string }>(
      "SELECT tableoid::regclass::text AS part, count(*) AS n FROM vessel_positions GROUP BY 1 ORDER BY 1",
    );
    expect(placed).toEqual([{ part: 'vessel_positions_20260301', n: '1' }, { part: 'vessel_positions_20260302', n: '2' }]);
    const { rows: times } = await pool.query<{ t: Date }>('SELECT reported_at AS t FROM vessel_positions WHERE mmsi = 2');
    expect(times[0]?.t.toISOString()).toBe('2026-03-02T08:00:00.125Z');
  });

  it('rolls forward a day later: the next day ahead, and a spatial index on the day that ended', async () => {
    expect(await maintainPartitions(pool, T0 + DAY, { retentionDays: 3, ahead: 2 })).toEqual({ created: ['2026-03-04'], dropped: [], indexed: ['vessel_positions_20260301'] });
    expect(await partitionDays(pool)).toEqual(['2026-03-01', '2026-03-02', '2026-03-03', '2026-03-04']);
    const { rows } = await pool.query<{ tablename: string }>("SELECT tablename FROM pg_indexes WHERE indexname LIKE 'vessel_positions_%_position_gist' ORDER BY 1");
    expect(rows.map((r) => r.tablename)).toEqual(['vessel_positions_20260301']);
    // A spatial query on the closed day can use it.
    await pool.query('SET enable_seqscan = off');
    const { rows: plan } = await pool.query("EXPLAIN SELECT * FROM vessel_positions_20260301 WHERE ST_DWithin(position, 'SRID=4326;POINT(12.8 55.6)'::geography, 100)");
    await pool.query('RESET enable_seqscan');
    expect(plan.map((r) => r['QUERY PLAN']).join('\n')).toContain('vessel_positions_20260301_position_gist');
  });

  it('drops whole days past retention with their rows, and keeps the rest', async () => {
    // On 2026-03-04 with 3 days kept: 03-02, 03-03 and 03-04 stay; 03-01 goes.
    const { dropped, indexed } = await maintainPartitions(pool, Date.parse('2026-03-04T00:30:00Z'), { retentionDays: 3, ahead: 2 });
    expect(dropped).toEqual(['vessel_positions_20260301']);
    expect(indexed).toEqual(['vessel_positions_20260302', 'vessel_positions_20260303']);
    expect(await partitionDays(pool)).toEqual(['2026-03-02', '2026-03-03', '2026-03-04', '2026-03-05', '2026-03-06']);
    const { rows } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM vessel_positions');
    expect(rows[0]?.n).toBe('2');
  });

  it('refuses a row whose day has no partition rather than losing it silently', async () => {
    await expect(insertPositions(pool, [row(3, Date.parse('2027-01-01T00:00:00Z'))])).rejects.toMatchObject({ code: '23514' });
  });

  it('stores the next batch on a connection whose first batch failed in its transaction', async () => {
    // A fresh connection: its staging table is created inside the failing transaction and rolled back with it.
    const fresh = createPool(db.url, 1);
    try {
      const client = await fresh.connect();
      try {
        await client.query('BEGIN');
        await expect(insertPositions(client, [row(5, Date.parse('2027-01-01T00:00:00Z'))])).rejects.toMatchObject({ code: '23514' });
        await client.query('ROLLBACK');
        expect(await insertPositions(client, [row(5, Date.parse('2026-03-04T10:00:00Z'))])).toBe(1);
      } finally {
        client.release();
      }
    } finally {
      await fresh.end();
    }
  });
});
