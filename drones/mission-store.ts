// The Postgres side of missions and the fleet (migration 0028): rows in and out, nothing decided here.
import type { Pool, PoolClient } from '../platform/postgres.ts';
import type { MissionStatus, MissionTarget } from '../schemas/drone.ts';
import type { DroneView } from './fleet-rules.ts';

export interface TimelineEntry {
  at: string;
  /** status: a state change; refused: a report that contradicted the state; command: a command written; note: anything else worth keeping. */
  entry: 'status' | 'refused' | 'command' | 'evidence' | 'note';
  from?: MissionStatus;
  to?: MissionStatus;
  detail?: string;
  command_id?: string;
}

export interface Evidence {
  media_id: string;
  media_type: string;
  url?: string;
  position?: { lon: number; lat: number };
  expected?: number;
  uploaded?: number;
  at: string;
}

export interface Mission {
  id: string;
  kind: string;
  status: MissionStatus;
  target: MissionTarget;
  subject: string;
  incident_id: string | null;
  event_id: string | null;
  action_id: string | null;
  drone_id: string | null;
  dock_id: string | null;
  priority: string;
  mmsi: number | null;
  requested_by: string;
  idempotency_key: string | null;
  created_at: string;
  updated_at: string;
  deadline_at: string | null;
  launched_at: string | null;
  finished_at: string | null;
  eta_seconds: number | null;
  remaining_distance_m: number | null;
  battery_percent: number | null;
  reason: string | null;
  launch_attempts: number;
  evidence: Evidence[];
  timeline: TimelineEntry[];
  contradictions: number;
}

const iso = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ${col}`;
export const MISSION_COLUMNS = `id, kind, status, target, subject, incident_id, event_id, action_id, drone_id, dock_id, priority, mmsi, requested_by, idempotency_key,
  ${iso('created_at')}, ${iso('updated_at')}, ${iso('deadline_at')}, ${iso('launched_at')}, ${iso('finished_at')},
  eta_seconds, remaining_distance_m, battery_percent, reason, launch_attempts, evidence, timeline, contradictions`;

export async function readMission(db: Pool | PoolClient, id: string, lock = false): Promise<Mission | undefined> {
  const { rows } = await db.query<Mission>(`SELECT ${MISSION_COLUMNS} FROM drone_missions WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0];
}

/**
 * Locks missions (in id order) without reading them. The lock order is mission before drone: a mission's
 * step (abort, report, deadline) locks the mission and then frees its drone, so a writer of drone rows that
 * will also touch their missions (telemetry) takes these locks first, or the two deadlock.
 */
export async function lockMissions(client: PoolClient, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await client.query('SELECT id FROM drone_missions WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE', [ids]);
}

export type NewMission = Pick<Mission, 'id' | 'kind' | 'target' | 'subject' | 'incident_id' | 'event_id' | 'action_id' | 'priority' | 'mmsi' | 'requested_by' | 'idempotency_key'>;

/**
 * Records a mission in `requested`; false when it is not new: its id is known (a retried action), its
 * idempotency key was used, or its incident already has an active mission for the subject.
 */
export async function insertMission(client: PoolClient, m: NewMission, deadline: Date, now: Date): Promise<boolean> {
  const timeline: TimelineEntry[] = [{ at: now.toISOString(), entry: 'status', to: 'requested', detail: `requested by ${m.requested_by}` }];
  const { rowCount } = await client.query(
    `INSERT INTO drone_missions (id, kind, status, target, subject, incident_id, event_id, action_id, priority, mmsi, requested_by, idempotency_key, created_at, updated_at, deadline_at, timeline)
     VALUES ($1, $2, 'requested', $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12, $13, $14)
     ON CONFLICT DO NOTHING`,
    [m.id, m.kind, JSON.stringify(m.target), m.subject, m.incident_id, m.event_id, m.action_id, m.priority, m.mmsi, m.requested_by, m.idempotency_key, now, deadline, JSON.stringify(timeline)],
  );
  return rowCount === 1;
}

/** The mission that kept `m` from being recorded (same id, same idempotency key, or the incident's active one for the subject). */
export async function existingMission(client: PoolClient, m: NewMission): Promise<Mission | undefined> {
  const { rows } = await client.query<Mission>(
    `SELECT ${MISSION_COLUMNS} FROM drone_missions
      WHERE id = $1
         OR ($2::text IS NOT NULL AND requested_by = $3 AND idempotency_key = $2)
         OR ($4::text IS NOT NULL AND incident_id = $4 AND subject = $5 AND status IN ('requested', 'accepted', 'launched', 'on_station', 'returning'))
      ORDER BY (id = $1) DESC LIMIT 1`,
    [m.id, m.idempotency_key, m.requested_by, m.incident_id, m.subject],
  );
  return rows[0];
}

export type MissionPatch = Partial<Pick<Mission, 'status' | 'drone_id' | 'dock_id' | 'deadline_at' | 'launched_at' | 'finished_at' | 'eta_seconds' | 'remaining_distance_m' | 'battery_percent' | 'reason' | 'launch_attempts' | 'target'>>;

/** Writes a patch, appends timeline entries and adds to the contradiction count, in the caller's transaction. */
export async function updateMission(client: PoolClient, id: string, patch: MissionPatch, entries: readonly TimelineEntry[], now: Date, contradictions = 0, evidence?: Evidence): Promise<void> {
  const sets: string[] = ['updated_at = $2', 'timeline = timeline || $3::jsonb', 'contradictions = contradictions + $4'];
  const values: unknown[] = [id, now, JSON.stringify(entries), contradictions];
  for (const [key, value] of Object.entries(patch)) {
    values.push(key === 'target' ? JSON.stringify(value) : value);
    sets.push(`${key} = $${values.length}`);
  }
  if (evidence !== undefined) {
    values.push(JSON.stringify([evidence]));
    sets.push(`evidence = evidence || $${values.length}::jsonb`);
  }
  await client.query(`UPDATE drone_missions SET ${sets.join(', ')} WHERE id = $1`, values);
}

interface DroneRow {
  id: string;
  dock_id: string | null;
  state: string;
  battery_percent: number;
  lon: number;
  lat: number;
  altitude_m: number;
  link: string;
  speed_mps: number | null;
  mission_id: string | null;
  last_seen_ms: string;
  lost_link: boolean;
  low_battery: boolean;
}

export interface DroneRecord extends DroneView {
  altitudeM: number;
  lostLinkRaised: boolean;
  lowBatteryRaised: boolean;
}

const DRONE_COLUMNS = `id, dock_id, state, battery_percent, lon, lat, altitude_m, link, speed_mps, mission_id,
  (extract(epoch FROM last_seen) * 1000)::bigint AS last_seen_ms, lost_link_at IS NOT NULL AS lost_link, low_battery_at IS NOT NULL AS low_battery`;

const droneOf = (r: DroneRow): DroneRecord => ({
  id: r.id, dockId: r.dock_id, state: r.state, batteryPercent: r.battery_percent, position: { lon: r.lon, lat: r.lat }, altitudeM: r.altitude_m, link: r.link,
  speedMps: r.speed_mps, missionId: r.mission_id, lastSeen: Number(r.last_seen_ms), lostLinkRaised: r.lost_link, lowBatteryRaised: r.low_battery,
});

/** Every drone as last reported. */
export async function listDrones(db: Pool | PoolClient): Promise<DroneRecord[]> {
  const { rows } = await db.query<DroneRow>(`SELECT ${DRONE_COLUMNS} FROM drones ORDER BY id`);
  return rows.map(droneOf);
}

export async function readDrones(client: PoolClient, ids: readonly string[]): Promise<Map<string, DroneRecord>> {
  const { rows } = await client.query<DroneRow>(`SELECT ${DRONE_COLUMNS} FROM drones WHERE id = ANY($1::text[])`, [ids]);
  return new Map(rows.map((r) => [r.id, droneOf(r)]));
}

/** Gives a free drone a mission; false when another mission took it first. */
export async function claimDrone(client: PoolClient, droneId: string, missionId: string): Promise<boolean> {
  const { rowCount } = await client.query('UPDATE drones SET mission_id = $2 WHERE id = $1 AND mission_id IS NULL', [droneId, missionId]);
  return rowCount === 1;
}

export async function setDroneMission(client: PoolClient, droneId: string, missionId: string | null, onlyIfMission?: string): Promise<void> {
  if (onlyIfMission === undefined) await client.query('UPDATE drones SET mission_id = $2 WHERE id = $1', [droneId, missionId]);
  else await client.query('UPDATE drones SET mission_id = $2 WHERE id = $1 AND mission_id = $3', [droneId, missionId, onlyIfMission]);
}

export interface TelemetryWrite {
  id: string;
  dock_id: string | null;
  state: string;
  battery_percent: number;
  lon: number;
  lat: number;
  altitude_m: number;
  link: string;
  speed_mps: number | null;
  last_seen: string;
  /** true: set the low-battery mark at last_seen; false: clear it; null: leave it. */
  low_battery: boolean | null;
}

/** Upserts the latest telemetry of each drone (one statement per batch); a record older than the stored one changes nothing. */
export async function writeTelemetry(client: PoolClient, rows: readonly TelemetryWrite[]): Promise<void> {
  if (rows.length === 0) return;
  await client.query(
    `INSERT INTO drones AS d (id, dock_id, state, battery_percent, lon, lat, altitude_m, link, speed_mps, last_seen, updated_at)
     SELECT r.id, r.dock_id, r.state, r.battery_percent, r.lon, r.lat, r.altitude_m, r.link, r.speed_mps, r.last_seen, now()
       FROM jsonb_to_recordset($1::jsonb) AS r(id text, dock_id text, state text, battery_percent float8, lon float8, lat float8, altitude_m float8, link text, speed_mps float8, last_seen timestamptz)
     ON CONFLICT (id) DO UPDATE SET dock_id = coalesce(EXCLUDED.dock_id, d.dock_id), state = EXCLUDED.state, battery_percent = EXCLUDED.battery_percent,
       lon = EXCLUDED.lon, lat = EXCLUDED.lat, altitude_m = EXCLUDED.altitude_m, link = EXCLUDED.link, speed_mps = EXCLUDED.speed_mps, last_seen = EXCLUDED.last_seen,
       lost_link_at = NULL, updated_at = now()
      WHERE d.last_seen < EXCLUDED.last_seen`,
    [JSON.stringify(rows)],
  );
  const marks = rows.filter((r) => r.low_battery !== null);
  if (marks.length === 0) return;
  await client.query(
    `UPDATE drones AS d SET low_battery_at = CASE WHEN m.raised THEN m.at END
       FROM jsonb_to_recordset($1::jsonb) AS m(id text, raised boolean, at timestamptz) WHERE d.id = m.id`,
    [JSON.stringify(marks.map((r) => ({ id: r.id, raised: r.low_battery, at: r.last_seen })))],
  );
}
