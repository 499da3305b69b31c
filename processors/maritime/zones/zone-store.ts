import { randomUUID } from 'node:crypto';
import type { Pool, PoolClient } from '../../../platform/postgres.ts';
import { inTransaction } from '../../../platform/postgres.ts';
import type { StoredZone, ZoneCreate } from '../../../schemas/zone.ts';
import { ZONES_CHANGED_CHANNEL } from './zone-catalog.ts';
import { indexZone } from './zone-index.ts';
import { DELETE_ZONE_CELLS_SQL, INSERT_ZONE_CELLS_SQL, UPSERT_ZONE_SQL, insertZoneCellsParams, upsertZoneParams } from './zone-sql.ts';

export interface ZoneFilter {
  type?: string;
  active?: boolean;
  alert_level?: string;
  page: number;
  per_page: number;
}

/** Zones in PostGIS: the definition, its exact geography and its H3 cover, written together. */
export class ZoneStore {
  constructor(private readonly pool: Pool) {}

  async get(id: string): Promise<StoredZone | undefined> {
    const { rows } = await this.pool.query<{ definition: StoredZone }>('SELECT definition FROM zones WHERE id = $1', [id]);
    return rows[0]?.definition;
  }

  async list(filter: ZoneFilter): Promise<{ zones: StoredZone[]; total: number }> {
    const where = `($1::text IS NULL OR type = $1) AND ($2::boolean IS NULL OR active = $2) AND ($3::text IS NULL OR alert_level = $3)`;
    const args = [filter.type ?? null, filter.active ?? null, filter.alert_level ?? null];
    const [{ rows }, { rows: [count] }] = await Promise.all([
      this.pool.query<{ definition: StoredZone }>(
        `SELECT definition FROM zones WHERE ${where} ORDER BY created_at, id LIMIT $4 OFFSET $5`,
        [...args, filter.per_page, (filter.page - 1) * filter.per_page],
      ),
      this.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM zones WHERE ${where}`, args),
    ]);
    return { zones: rows.map((r) => r.definition), total: count?.n ?? 0 };
  }

  /** The name another zone already uses, if any (names are unique: rules and filters refer to zones by name). */
  async nameTaken(name: string, exceptId?: string): Promise<boolean> {
    const { rows } = await this.pool.query('SELECT 1 FROM zones WHERE lower(name) = lower($1) AND id <> coalesce($2, \'\')', [name, exceptId ?? null]);
    return rows.length > 0;
  }

  /** PostGIS's own verdict on the stored shape (ST_IsValid), as a reason, or undefined when valid. */
  async shapeProblem(zone: StoredZone): Promise<string | undefined> {
    const params = upsertZoneParams(zone);
    const { rows } = await this.pool.query<{ valid: boolean; reason: string }>(
      // A zone across the antimeridian is valid on the sphere but not in planar degrees; shifted it is.
      `SELECT ST_IsValid(g) OR ST_IsValid(ST_ShiftLongitude(g)) AS valid, ST_IsValidReason(g) AS reason
         FROM (SELECT ST_GeomFromGeoJSON($1::text) AS g) s`,
      [params[7]],
    );
    return rows[0]?.valid ? undefined : `geometry is not valid: ${rows[0]?.reason ?? 'unknown reason'}`;
  }

  async create(body: ZoneCreate): Promise<StoredZone> {
    const now = new Date().toISOString();
    const zone: StoredZone = { ...body, id: `zone_${randomUUID().replaceAll('-', '')}`, created_at: now, updated_at: now };
    await this.#write(zone);
    return zone;
  }

  async replace(existing: StoredZone, body: ZoneCreate): Promise<StoredZone> {
    const zone: StoredZone = { ...body, id: existing.id, created_at: existing.created_at, updated_at: new Date().toISOString() };
    await this.#write(zone);
    return zone;
  }

  async delete(id: string): Promise<boolean> {
    return inTransaction(this.pool, async (client) => {
      const { rowCount } = await client.query('DELETE FROM zones WHERE id = $1', [id]);
      await notify(client);
      return (rowCount ?? 0) > 0;
    });
  }

  async #write(zone: StoredZone): Promise<void> {
    const { cells } = indexZone(zone);
    await inTransaction(this.pool, async (client) => {
      await client.query(UPSERT_ZONE_SQL, upsertZoneParams(zone));
      await client.query(DELETE_ZONE_CELLS_SQL, [zone.id]);
      await client.query(INSERT_ZONE_CELLS_SQL, insertZoneCellsParams(zone.id, cells));
      await notify(client);
    });
  }
}

/** Delivered at commit: processors reload their zones within moments of a change. */
async function notify(client: PoolClient): Promise<void> {
  await client.query('SELECT pg_notify($1, $2)', [ZONES_CHANGED_CHANNEL, 'changed']);
}
