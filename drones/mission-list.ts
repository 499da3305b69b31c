// Reads for the drones API: the fleet's status, missions by filter (newest first, paged as events are),
// and one mission with its timeline.
import type { Pool } from '../platform/postgres.ts';
import type { MissionListQuery } from '../schemas/drone.ts';
import { linkLost, type FleetSettings } from './fleet-rules.ts';
import { listDrones, MISSION_COLUMNS, type Mission } from './mission-store.ts';

export async function fleetStatus(pool: Pool, s: Pick<FleetSettings, 'telemetryIntervalMs' | 'lostLinkIntervals'>, now: number) {
  return (await listDrones(pool)).map((d) => ({
    id: d.id, dock_id: d.dockId, state: d.state, battery_percent: d.batteryPercent, position: d.position, altitude_m: d.altitudeM,
    link: linkLost(d, now, s) ? 'lost' : d.link, mission_id: d.missionId, last_seen: new Date(d.lastSeen).toISOString(),
  }));
}

/** A mission as the API shows it; the timeline only in the detail. */
export function missionView(m: Mission, withTimeline: boolean): Record<string, unknown> {
  const { launch_attempts: _a, idempotency_key: _k, mmsi: _m, timeline, ...rest } = m;
  return withTimeline ? { ...rest, timeline } : rest;
}

export function missionListProblems(query: { start_date?: unknown; end_date?: unknown }): { path: string; message: string }[] {
  const start = typeof query.start_date === 'string' ? Date.parse(query.start_date) : NaN;
  const end = typeof query.end_date === 'string' ? Date.parse(query.end_date) : NaN;
  return !Number.isNaN(start) && !Number.isNaN(end) && start > end ? [{ path: '/start_date', message: 'must not be after end_date' }] : [];
}

export async function listMissions(pool: Pool, q: MissionListQuery): Promise<{ missions: Record<string, unknown>[]; total: number }> {
  const where: string[] = [];
  const values: unknown[] = [];
  const add = (sql: string, value: unknown) => {
    values.push(value);
    where.push(sql.replace('?', `$${values.length}`));
  };
  if (q.status !== undefined) add('status = ?', q.status);
  if (q.kind !== undefined) add('kind = ?', q.kind);
  if (q.drone_id !== undefined) add('drone_id = ?', q.drone_id);
  if (q.incident_id !== undefined) add('incident_id = ?', q.incident_id);
  if (q.start_date !== undefined) add('created_at >= ?', q.start_date);
  if (q.end_date !== undefined) add('created_at <= ?', q.end_date);
  const clause = where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`;
  const page = q.page ?? 1;
  const perPage = q.per_page ?? 50;
  const { rows } = await pool.query<Mission & { total: string }>(
    `SELECT ${MISSION_COLUMNS}, count(*) OVER () AS total FROM drone_missions ${clause} ORDER BY drone_missions.created_at DESC, id LIMIT $${values.length + 1} OFFSET $${values.length + 2}`,
    [...values, perPage, (page - 1) * perPage],
  );
  let total = Number(rows[0]?.total ?? 0);
  if (rows.length === 0 && page > 1) total = Number((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM drone_missions ${clause}`, values)).rows[0]?.n ?? 0);
  return { missions: rows.map(({ total: _t, ...m }) => missionView(m as Mission, false)), total };
}
