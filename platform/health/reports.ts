// Each instance's health report in Postgres (migration 0027), and the fresh reports of every instance.
// A report counts until its expiry; the one of an instance that crashed (or cannot reach Postgres any
// more) stops counting then, and is deleted by whichever instance reports next.
import type { Pool, PoolClient } from '../postgres.ts';
import type { ComponentHealth, HealthStatus, InstanceReport } from './model.ts';

export interface LocalComponent extends ComponentHealth {
  since: Date;
}

/** Replaces this instance's report: its components now, each with its own since; components it no longer has are removed. */
export async function writeReport(pool: Pool, instanceId: string, roles: readonly string[], components: ReadonlyMap<string, LocalComponent>, ttlMs: number): Promise<void> {
  const rows = [...components].map(([component, c]) => ({ component, status: c.status, since: c.since.toISOString(), reason: c.reason }));
  await pool.query(
    `WITH input AS (
       SELECT * FROM jsonb_to_recordset($2::jsonb) AS r (component text, status text, since timestamptz, reason text)
     ), gone AS (
       DELETE FROM health_reports h WHERE h.instance_id = $1 AND NOT EXISTS (SELECT 1 FROM input WHERE input.component = h.component)
     )
     INSERT INTO health_reports (instance_id, component, status, since, reason, roles, reported_at, expires_at)
     SELECT $1, component, status, since, reason, $3, now(), now() + make_interval(secs => $4::double precision / 1000) FROM input
     ON CONFLICT (instance_id, component) DO UPDATE
       SET status = EXCLUDED.status, since = EXCLUDED.since, reason = EXCLUDED.reason, roles = EXCLUDED.roles,
           reported_at = EXCLUDED.reported_at, expires_at = EXCLUDED.expires_at`,
    [instanceId, JSON.stringify(rows), roles, ttlMs],
  );
}

/** A stopping instance takes its report back at once rather than letting it expire. */
export async function withdrawReport(pool: Pool, instanceId: string): Promise<void> {
  await pool.query('DELETE FROM health_reports WHERE instance_id = $1', [instanceId]);
}

export interface InstanceInfo {
  instance_id: string;
  roles: string[];
  reported_at: Date;
  expires_at: Date;
}

export interface FreshReports {
  reports: InstanceReport[];
  instances: InstanceInfo[];
  now: Date;
}

/** Deletes expired reports and reads the rest, with the database's clock (one clock for every instance's expiry and debounce). */
export async function freshReports(db: Pool | PoolClient): Promise<FreshReports> {
  await db.query('DELETE FROM health_reports WHERE expires_at < now()');
  const { rows } = await db.query<{ instance_id: string; component: string; status: HealthStatus; since: Date; reason: string; roles: string[]; reported_at: Date; expires_at: Date; now: Date }>(
    'SELECT instance_id, component, status, since, reason, roles, reported_at, expires_at, now() AS now FROM health_reports WHERE expires_at >= now() ORDER BY instance_id, component',
  );
  const instances = new Map<string, InstanceInfo>();
  for (const r of rows) {
    if (!instances.has(r.instance_id)) instances.set(r.instance_id, { instance_id: r.instance_id, roles: r.roles, reported_at: r.reported_at, expires_at: r.expires_at });
  }
  const now = rows[0]?.now ?? (await db.query<{ now: Date }>('SELECT now() AS now')).rows[0]!.now;
  return {
    reports: rows.map((r) => ({ instance_id: r.instance_id, component: r.component, status: r.status, since: r.since, reason: r.reason })),
    instances: [...instances.values()],
    now,
  };
}

/** Reports grouped by component. */
export function byComponent(reports: readonly InstanceReport[]): Map<string, InstanceReport[]> {
  const out = new Map<string, InstanceReport[]>();
  for (const r of reports) {
    const list = out.get(r.component);
    if (list === undefined) out.set(r.component, [r]);
    else list.push(r);
  }
  return out;
}
