import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, migrate, type Pool } from '../../../platform/postgres.ts';
import { testConfig, testLog } from '../../support/stack.ts';

describe('postgres with PostGIS', () => {
  const config = testConfig();
  let pool: Pool;

  beforeAll(async () => {
    await migrate(config.databaseUrl, testLog);
    pool = createPool(config.databaseUrl, 2);
  });
  afterAll(() => pool.end());

  it('applies migrations once: a second run applies nothing', async () => {
    expect(await migrate(config.databaseUrl, testLog)).toEqual([]);
    const { rows } = await pool.query<{ name: string }>('SELECT name FROM pgmigrations ORDER BY id');
    expect(rows.map((r) => r.name)).toContain('0001_foundation');
  });

  it('finds vessels within a distance on the ellipsoid with ST_DWithin on geography', async () => {
    // Two vessels in the Øresund, ~1.1 km and ~5.6 km from a point off Copenhagen's harbour entrance.
    await pool.query(
      `INSERT INTO vessels (mmsi, name, last_position, last_report_at)
       VALUES ($1, 'NEAR', ST_SetSRID(ST_MakePoint($2, $3), 4326)::geography, now()),
              ($4, 'FAR', ST_SetSRID(ST_MakePoint($5, $6), 4326)::geography, now())
       ON CONFLICT (mmsi) DO UPDATE SET last_position = EXCLUDED.last_position`,
      [219000001, 12.62, 55.70, 219000002, 12.70, 55.70],
    );
    const { rows } = await pool.query<{ mmsi: number; meters: number }>(
      `SELECT mmsi, ST_Distance(last_position, ST_SetSRID(ST_MakePoint($1, $2), 4326)::geography) AS meters
         FROM vessels
        WHERE ST_DWithin(last_position, ST_SetSRID(ST_MakePoint($1, $2), 4326)::geography, $3)
        ORDER BY mmsi`,
      [12.6025, 55.70, 2_000],
    );
    expect(rows.map((r) => r.mmsi)).toEqual([219000001]);
    expect(rows[0]!.meters).toBeGreaterThan(1_050);
    expect(rows[0]!.meters).toBeLessThan(1_150);
  });
});
