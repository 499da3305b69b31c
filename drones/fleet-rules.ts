// Which drone flies (drone choice) and what the fleet's telemetry or its silence raises (lost link, low
// battery): pure, on the clock and settings given, so the unit tests move time by hand.
import { distanceM, type LonLat } from './geo.ts';

export interface FleetSettings {
  /** A drone launches only at or above this battery level. */
  launchBatteryPercent: number;
  /** At or below this, an airborne drone raises drone_low_battery (once per episode). */
  lowBatteryPercent: number;
  /** How often each drone is expected to send telemetry. */
  telemetryIntervalMs: number;
  /** Missed expected intervals after which the link is lost. */
  lostLinkIntervals: number;
  /** Cruise speed for flight times and ETAs when the drone does not report one. */
  cruiseSpeedMps: number;
  /** Flight time on a full battery, down to the low-battery threshold. */
  enduranceMinutes: number;
}

export interface DroneView {
  id: string;
  dockId: string | null;
  state: string;
  batteryPercent: number;
  position: LonLat;
  link: string;
  missionId: string | null;
  lastSeen: number;
  speedMps: number | null;
}

/** Modes in which a drone is on the ground, not in the air. */
const GROUNDED = new Set(['docked', 'idle', 'charging']);
/** Modes from which a drone can be launched. */
const LAUNCHABLE = new Set(['docked', 'idle']);

export function linkLost(drone: Pick<DroneView, 'lastSeen'>, now: number, s: Pick<FleetSettings, 'telemetryIntervalMs' | 'lostLinkIntervals'>): boolean {
  return now - drone.lastSeen > s.telemetryIntervalMs * s.lostLinkIntervals;
}

/** Seconds a drone needs to reach `to` at its cruise speed. */
export function flightSeconds(from: LonLat, to: LonLat, speedMps: number): number {
  return distanceM(from, to) / Math.max(0.1, speedMps);
}

/** A drone's flight speed: the one it reports when moving, else the cruise speed (a docked drone reports 0). */
export function speedOf(drone: Pick<DroneView, 'speedMps'>, s: Pick<FleetSettings, 'cruiseSpeedMps'>): number {
  return drone.speedMps !== null && drone.speedMps > 0.5 ? drone.speedMps : s.cruiseSpeedMps;
}

/** Why a drone cannot take a mission to `target` now; undefined when it can. */
export function unavailability(drone: DroneView, target: LonLat, now: number, s: FleetSettings): string | undefined {
  if (!LAUNCHABLE.has(drone.state)) return `${drone.id} is ${drone.state}`;
  if (drone.missionId !== null) return `${drone.id} is on mission ${drone.missionId}`;
  if (drone.link !== 'up' || linkLost(drone, now, s)) return `${drone.id} has no link`;
  if (drone.batteryPercent < s.launchBatteryPercent) return `${drone.id} battery ${drone.batteryPercent}% is below ${s.launchBatteryPercent}%`;
  // There and back on what the battery holds above the low-battery level.
  const usableSeconds = (s.enduranceMinutes * 60 * (drone.batteryPercent - s.lowBatteryPercent)) / 100;
  if (2 * flightSeconds(drone.position, target, speedOf(drone, s)) > usableSeconds) return `${drone.id} cannot reach the target and return on its battery`;
  return undefined;
}

export type Choice = { drone: DroneView; flightSeconds: number } | { drone: undefined; reasons: string[] };

/** The available drone nearest to the target by flight time (ties: lower id); else every drone's reason. */
export function chooseDrone(drones: readonly DroneView[], target: LonLat, now: number, s: FleetSettings): Choice {
  let best: { drone: DroneView; flightSeconds: number } | undefined;
  const reasons: string[] = [];
  for (const drone of drones) {
    const why = unavailability(drone, target, now, s);
    if (why !== undefined) {
      reasons.push(why);
      continue;
    }
    const seconds = flightSeconds(drone.position, target, speedOf(drone, s));
    if (best === undefined || seconds < best.flightSeconds || (seconds === best.flightSeconds && drone.id < best.drone.id)) best = { drone, flightSeconds: seconds };
  }
  if (best !== undefined) return best;
  return { drone: undefined, reasons: reasons.length === 0 ? ['no drone has reported telemetry'] : reasons };
}

/** Whether a drone's telemetry crosses into low battery: airborne, at or below the threshold, not yet raised this episode. */
export function lowBatteryCrossed(state: string, batteryPercent: number, alreadyRaised: boolean, s: Pick<FleetSettings, 'lowBatteryPercent'>): boolean {
  return !alreadyRaised && !GROUNDED.has(state) && batteryPercent <= s.lowBatteryPercent;
}

/** Whether a raised low-battery episode is over (charged to the launch level again). */
export function lowBatteryCleared(batteryPercent: number, s: Pick<FleetSettings, 'launchBatteryPercent'>): boolean {
  return batteryPercent >= s.launchBatteryPercent;
}

/** Whether silence raises drone_lost_link: the link is lost, the drone was not on the ground, not yet raised for this silence. */
export function lostLinkDue(drone: Pick<DroneView, 'lastSeen' | 'state' | 'missionId'>, alreadyRaised: boolean, now: number, s: Pick<FleetSettings, 'telemetryIntervalMs' | 'lostLinkIntervals'>): boolean {
  // A silent dock with its drone inside is the dock's health (issue 25), not a drone lost in flight.
  return !alreadyRaised && (!GROUNDED.has(drone.state) || drone.missionId !== null) && linkLost(drone, now, s);
}

/** Remaining distance and ETA of a drone flying to `target`. */
export function etaOf(position: LonLat, target: LonLat, speedMps: number | null, s: Pick<FleetSettings, 'cruiseSpeedMps'>): { remainingM: number; etaSeconds: number } {
  const remainingM = distanceM(position, target);
  const speed = speedMps !== null && speedMps > 0.5 ? speedMps : s.cruiseSpeedMps;
  return { remainingM, etaSeconds: remainingM / speed };
}
