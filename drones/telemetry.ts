// Applies a batch of validated telemetry in one transaction: each drone's newest record becomes its fleet
// row, a flying mission's ETA and battery follow it, and a record that crosses into low battery raises
// drone_low_battery once (and tells a drone on a mission to come home).
import { storeEvents } from '../events/store.ts';
import type { PoolClient } from '../platform/postgres.ts';
import type { DroneTelemetry } from '../schemas/drone.ts';
import type { SecurityEvent } from '../schemas/event.ts';
import { enqueueDroneCommands, returnHomeCommand } from './commands.ts';
import { lowBatteryCleared, lowBatteryCrossed } from './fleet-rules.ts';
import { droneLowBattery } from './mission-events.ts';
import { lockMissions, readDrones, readMission, writeTelemetry, type TelemetryWrite } from './mission-store.ts';
import { trackProgress, type MissionSettings, type Progress } from './missions.ts';
import { FLYING_STATUSES } from './mission-machine.ts';

export async function applyTelemetry(client: PoolClient, records: readonly DroneTelemetry[], s: MissionSettings, now: Date): Promise<SecurityEvent[]> {
  const byDrone = new Map<string, DroneTelemetry[]>();
  for (const r of records) byDrone.set(r.drone_id, [...(byDrone.get(r.drone_id) ?? []), r]);
  const known = await readDrones(client, [...byDrone.keys()]);
  const writes: TelemetryWrite[] = [];
  const events: SecurityEvent[] = [];
  const progress: Progress[] = [];
  for (const [id, list] of byDrone) {
    const before = known.get(id);
    const fresh = list.filter((r) => before === undefined || Date.parse(r.at) > before.lastSeen).sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
    const newest = fresh[fresh.length - 1];
    if (newest === undefined) continue; // a replay of what is stored
    let raised = before?.lowBatteryRaised ?? false;
    let mark: boolean | null = null;
    for (const r of fresh) {
      if (lowBatteryCrossed(r.mode, r.battery_percent, raised, s)) {
        raised = true;
        mark = true;
        const mission = before?.missionId == null ? undefined : await readMission(client, before.missionId);
        events.push(droneLowBattery(id, r.battery_percent, r.position, r.at, mission, now));
        if (mission !== undefined && FLYING_STATUSES.has(mission.status)) await enqueueDroneCommands(client, [returnHomeCommand(mission, id, 'low_battery', `battery ${r.battery_percent}%`, now)]);
      } else if (raised && lowBatteryCleared(r.battery_percent, s)) {
        raised = false;
        mark = false;
      }
    }
    writes.push({
      id, dock_id: newest.dock_id ?? null, state: newest.mode, battery_percent: newest.battery_percent, lon: newest.position.lon, lat: newest.position.lat,
      altitude_m: newest.altitude_m, link: newest.link, speed_mps: newest.speed_mps ?? null, last_seen: newest.at, low_battery: mark,
    });
    if (before?.missionId != null) progress.push({ missionId: before.missionId, position: newest.position, speedMps: newest.speed_mps ?? null, battery: newest.battery_percent });
  }
  // Mission before drone, as every mission step takes them (an abort at the same moment would deadlock).
  await lockMissions(client, progress.map((p) => p.missionId));
  await writeTelemetry(client, writes);
  await trackProgress(client, progress, s, now);
  await storeEvents(client, events);
  return events;
}
