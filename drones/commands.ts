// The commands to the fleet (drone.commands), built from their causes (pure), and the outbox they are
// written to in the transaction of the mission change that caused them (migration 0028). Each command_id
// names its cause, so a replayed cause writes nothing new and the adapter executes each id once.
import type { PoolClient } from '../platform/postgres.ts';
import type { DroneCommand, MissionTarget } from '../schemas/drone.ts';
import type { Mission } from './mission-store.ts';

/** NOTIFY after a commit that wrote commands: every instance's sender wakes. */
export const DRONE_COMMANDS_CHANNEL = 'pss_drone_commands';

export const launchCommandId = (missionId: string, attempt: number) => `cmd_${missionId}_launch_${attempt}`;

export function launchCommand(m: Mission, droneId: string, attempt: number, at: Date): DroneCommand {
  return {
    command_id: launchCommandId(m.id, attempt), drone_id: droneId, mission_id: m.id, type: 'launch', kind: m.kind as DroneCommand['kind'],
    target: m.target, rth_altitude_m: 60, lost_link_action: 'return_home', issued_at: at.toISOString(),
  };
}

export function abortCommand(m: Mission, droneId: string, reason: string, at: Date): DroneCommand {
  return { command_id: `cmd_${m.id}_abort`, drone_id: droneId, mission_id: m.id, type: 'abort', reason, issued_at: at.toISOString() };
}

export function returnHomeCommand(m: Mission, droneId: string, cause: string, reason: string, at: Date): DroneCommand {
  return { command_id: `cmd_${m.id}_rth_${cause}`, drone_id: droneId, mission_id: m.id, type: 'return_home', reason, issued_at: at.toISOString() };
}

export function targetCommand(m: Mission, droneId: string, target: MissionTarget, n: number, at: Date): DroneCommand {
  return { command_id: `cmd_${m.id}_target_${n}`, drone_id: droneId, mission_id: m.id, type: 'update_target', target, issued_at: at.toISOString() };
}

/** Writes commands in the caller's transaction, in order; ids already written are left alone. Returns how many were new. */
export async function enqueueDroneCommands(client: PoolClient, commands: readonly DroneCommand[]): Promise<number> {
  if (commands.length === 0) return 0;
  const { rowCount } = await client.query(
    `INSERT INTO drone_command_outbox (command_id, drone_id, mission_id, command)
     SELECT c->>'command_id', c->>'drone_id', c->>'mission_id', c FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS t(c, n) ORDER BY n
     ON CONFLICT (command_id) DO NOTHING`,
    [JSON.stringify(commands)],
  );
  const added = rowCount ?? 0;
  if (added > 0) await client.query('SELECT pg_notify($1, $2)', [DRONE_COMMANDS_CHANNEL, '']);
  return added;
}
