// The fleet monitor, one sweep on our clock (every PSS_DRONE_SWEEP_MS on each processors instance; rows
// are taken FOR UPDATE SKIP LOCKED, so instances share the work): drones silent for too long raise
// drone_lost_link, missions past their deadline time out (and escalate), waiting missions get a drone that
// freed up, and a tracked vessel that moved gives its drone an updated target.
import { storeEvents } from '../events/store.ts';
import type { PoolClient } from '../platform/postgres.ts';
import type { SecurityEvent } from '../schemas/event.ts';
import { enqueueDroneCommands, targetCommand } from './commands.ts';
import { lostLinkDue } from './fleet-rules.ts';
import { distanceM, targetPoint } from './geo.ts';
import { droneLostLink } from './mission-events.ts';
import { lockMissions, MISSION_COLUMNS, readMission, updateMission, type Mission } from './mission-store.ts';
import { assignDrone, expireMission, type MissionSettings, type StepResult } from './missions.ts';

/** A tracked vessel must have moved this far from the drone's target before the target is updated. */
const TRACK_MOVE_M = 50;

export interface SweepResult {
  events: SecurityEvent[];
  unanswered: NonNullable<StepResult['unanswered']>[];
}

interface SilentRow {
  id: string;
  state: string;
  mission_id: string | null;
  lon: number;
  lat: number;
  last_seen_ms: string;
}

export async function sweepLostLinks(client: PoolClient, s: MissionSettings, now: Date): Promise<SecurityEvent[]> {
  const silentFor = s.telemetryIntervalMs * s.lostLinkIntervals;
  const silent = `FROM drones WHERE lost_link_at IS NULL AND last_seen < $1::timestamptz - make_interval(secs => $2::double precision / 1000)`;
  // Their missions are locked before the drones (the order every mission step takes; lockMissions).
  const missionIds = await client.query<{ mission_id: string }>(`SELECT mission_id ${silent} AND mission_id IS NOT NULL`, [now, silentFor]);
  await lockMissions(client, missionIds.rows.map((r) => r.mission_id));
  const { rows } = await client.query<SilentRow>(
    `SELECT id, state, mission_id, lon, lat, (extract(epoch FROM last_seen) * 1000)::bigint AS last_seen_ms ${silent} FOR UPDATE SKIP LOCKED`,
    [now, silentFor],
  );
  const events: SecurityEvent[] = [];
  for (const r of rows) {
    const lastSeen = Number(r.last_seen_ms);
    if (!lostLinkDue({ lastSeen, state: r.state, missionId: r.mission_id }, false, now.getTime(), s)) continue;
    const mission = r.mission_id === null ? undefined : await readMission(client, r.mission_id);
    events.push(droneLostLink(r.id, new Date(lastSeen), { lon: r.lon, lat: r.lat }, now.getTime() - lastSeen, mission, now));
    await client.query('UPDATE drones SET lost_link_at = last_seen WHERE id = $1', [r.id]);
    if (mission !== undefined) await updateMission(client, mission.id, {}, [{ at: now.toISOString(), entry: 'note', detail: `${r.id} lost link (silent ${Math.round((now.getTime() - lastSeen) / 1000)} s)` }], now);
  }
  await storeEvents(client, events);
  return events;
}

async function dueMissions(client: PoolClient, where: string, params: unknown[]): Promise<Mission[]> {
  const { rows } = await client.query<Mission>(`SELECT ${MISSION_COLUMNS} FROM drone_missions WHERE ${where} ORDER BY priority = 'immediate' DESC, created_at LIMIT 100 FOR UPDATE SKIP LOCKED`, params);
  return rows;
}

export async function sweepMissions(client: PoolClient, s: MissionSettings, now: Date): Promise<SweepResult> {
  const result: SweepResult = { events: [], unanswered: [] };
  for (const mission of await dueMissions(client, `status IN ('requested', 'accepted') AND deadline_at <= $1`, [now])) {
    const step = await expireMission(client, mission, now);
    result.events.push(...step.events);
    if (step.unanswered !== undefined) result.unanswered.push(step.unanswered);
  }
  for (const mission of await dueMissions(client, `status = 'requested' AND drone_id IS NULL AND deadline_at > $1`, [now])) {
    await assignDrone(client, mission, s, now);
  }
  for (const mission of await dueMissions(client, `kind = 'track' AND mmsi IS NOT NULL AND status IN ('launched', 'on_station')`, [])) {
    await followVessel(client, mission, now);
  }
  return result;
}

/** A track mission's drone gets the vessel's latest position as its new target once the vessel moved. */
async function followVessel(client: PoolClient, mission: Mission, now: Date): Promise<void> {
  const { rows } = await client.query<{ lon: number; lat: number }>(
    `SELECT ST_X(position::geometry) AS lon, ST_Y(position::geometry) AS lat FROM vessel_positions WHERE mmsi = $1 AND reported_at > now() - interval '1 day' ORDER BY reported_at DESC LIMIT 1`,
    [mission.mmsi],
  );
  const latest = rows[0];
  if (latest === undefined || mission.drone_id === null) return;
  if (distanceM(latest, targetPoint(mission.target)) < TRACK_MOVE_M) return;
  const n = mission.timeline.filter((e) => e.entry === 'command' && e.command_id?.includes('_target_') === true).length + 1;
  const target = { type: 'Point' as const, coordinates: [latest.lon, latest.lat] };
  const command = targetCommand(mission, mission.drone_id, target, n, now);
  await updateMission(client, mission.id, { target }, [{ at: now.toISOString(), entry: 'command', command_id: command.command_id, detail: `vessel ${mission.mmsi} moved: new target` }], now);
  await enqueueDroneCommands(client, [command]);
}
