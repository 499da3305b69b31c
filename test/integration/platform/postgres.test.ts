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

  it('finds zones within a distance of a vessel on the ellipsoid with ST_DWithin on geography', async () => {
    // A square zone off Copenhagen's harbour entrance (east edge at 12.61 E), and two vessel positions
    // in the Øresund ~1.1 km and ~5.6 km east of it.
    const name = `square-${Date.now()}`;
    await pool.query(
      `INSERT INTO zones (name, type, alert_level, definition, geometry_type, shape)
       VALUES ($1, 'monitoring', 'low', '{}'::jsonb, 'Polygon',
               ST_GeogFromText('SRID=4326;POLYGON((12.60 55.69, 12.61 55.69, 12.61 55.71, 12.60 55.71, 12.60 55.69))'))`,
      [name],
    );
    const near = (lon: number, lat: number) =>
      pool.query<{ name: string; meters: number }>(
        `SELECT name, ST_Distance(shape, ST_SetSRID(ST_MakePoint($1, $2), 4326)::geography) AS meters
           FROM zones
          WHERE name = $3 AND ST_DWithin(shape, ST_SetSRID(ST_MakePoint($1, $2), 4326)::geography, $4)`,
        [lon, lat, name, 2_000],
      );
    const close = await near(12.6275, 55.70);
    expect(close.rows.map((r) => r.name)).toEqual([name]);
    expect(close.rows[0]!.meters).toBeGreaterThan(1_050);
    expect(close.rows[0]!.meters).toBeLessThan(1_150);
    expect((await near(12.70, 55.70)).rows).toEqual([]);
    await pool.query('DELETE FROM zones WHERE name = $1', [name]);
  });
});
