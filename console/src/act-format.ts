// How the Locks and Drones tabs word a gate's lock and a drone (docs/console.md "What it shows"). Pure, and
// without the DOM, so the unit tests and the root type-check read it (gate-locks.ts, drone-fleet.ts draw).
import type { Drone } from './mission-format.ts';
import { shortTime } from './time-format.ts';

/** A gate's lock state as GET /v1/gates/locks lists it (docs/gate.md "Locks and their release"). */
export interface GateLock {
  gate_id: string;
  locked: boolean;
  locked_at: string;
  lock_reason: string;
  incident_id: string | null;
  released_at: string | null;
  released_by: string | null;
  release_reason: string | null;
}

/** The line a person reads for a gate (pure). */
export function lockLine(lock: GateLock, timezone: string, now: number = Date.now()): string {
  if (lock.locked) return `Locked${lock.incident_id ? ` by incident ${lock.incident_id}` : ' by the response loop'} since ${shortTime(lock.locked_at, timezone, now)}`;
  return `Unlocked: released${lock.released_by ? ` by ${lock.released_by}` : ''}${lock.released_at ? ` at ${shortTime(lock.released_at, timezone, now)}` : ''}${lock.release_reason ? ` (${lock.release_reason})` : ''}`;
}

/** A drone's line (pure): its state, battery, link and mission. */
export function droneLine(d: Drone & { mission_id?: string | null; last_seen?: string }, timezone: string, now: number = Date.now()): string {
  const parts = [d.state, `battery ${Math.round(d.battery_percent)}%`, `link ${d.link}`];
  if (d.mission_id) parts.push(`mission ${d.mission_id}`);
  if (d.last_seen) parts.push(`seen ${shortTime(d.last_seen, timezone, now)}`);
  return parts.join(' · ');
}
