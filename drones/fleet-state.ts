// Questions about the fleet as a whole.
import type { Pool, PoolClient } from '../platform/postgres.ts';
import type { FleetSettings } from './fleet-rules.ts';

/** Whether any drone's link is up now: without one the fleet is not connected (a dispatch waits for it rather than failing). */
export async function fleetConnected(db: Pool | PoolClient, s: Pick<FleetSettings, 'telemetryIntervalMs' | 'lostLinkIntervals'>, now: Date): Promise<boolean> {
  const { rows } = await db.query(`SELECT 1 FROM drones WHERE last_seen >= $1::timestamptz - make_interval(secs => $2::double precision / 1000) LIMIT 1`, [now, s.telemetryIntervalMs * s.lostLinkIntervals]);
  return rows.length > 0;
}

/** Where to fly for an event that gives no coordinates: the centre of its zone, when the zone is known. */
export async function zoneCentre(db: Pool | PoolClient, zone: string): Promise<{ lon: number; lat: number } | undefined> {
  const { rows } = await db.query<{ lon: number; lat: number }>(
    'SELECT ST_X(ST_Centroid(shape::geometry)) AS lon, ST_Y(ST_Centroid(shape::geometry)) AS lat FROM zones WHERE name = $1 ORDER BY active DESC LIMIT 1',
    [zone],
  );
  return rows[0];
}
