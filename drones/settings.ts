// The drone missions' settings (PSS_DRONE_*), owned here and assembled with every other module's in app/config.ts.
import { int, type Setting, type SettingsValues } from '../platform/config.ts';
import type { FleetSettings } from './fleet-rules.ts';

export const DRONE_SETTINGS = {
  droneLaunchBatteryPercent: {
    env: 'PSS_DRONE_LAUNCH_BATTERY_PERCENT',
    description: 'Drone choice: a drone launches only at or above this battery level (percent).',
    default: '60',
    parse: int(1, 100),
  },
  droneLowBatteryPercent: {
    env: 'PSS_DRONE_LOW_BATTERY_PERCENT',
    description: 'An airborne drone at or below this battery level raises drone_low_battery, once per episode (PX4 BAT_LOW_THR is 15%; the default leaves time to come home).',
    default: '25',
    parse: int(1, 99),
  },
  droneTelemetryIntervalMs: {
    env: 'PSS_DRONE_TELEMETRY_INTERVAL_MS',
    description: 'How often each drone is expected to send telemetry (DJI docks: 0.5 Hz).',
    default: '2000',
    parse: int(100, 60_000),
  },
  droneLostLinkIntervals: {
    env: 'PSS_DRONE_LOST_LINK_INTERVALS',
    description: 'Missed expected telemetry intervals after which a drone in the air or on a mission raises drone_lost_link (MAVLink: about 5 missed heartbeats).',
    default: '5',
    parse: int(1, 1_000),
  },
  droneCruiseSpeedMps: {
    env: 'PSS_DRONE_CRUISE_SPEED_MPS',
    description: 'Flight times (drone choice) and ETAs for drones that do not report their speed, in m/s.',
    default: '12',
    parse: int(1, 100),
  },
  droneEnduranceMinutes: {
    env: 'PSS_DRONE_ENDURANCE_MINUTES',
    description: 'Flight time on a full battery down to the low-battery level: a drone that cannot reach the target and return on what its battery holds is not chosen.',
    default: '35',
    parse: int(1, 600),
  },
  droneAckTimeoutMs: {
    env: 'PSS_DRONE_ACK_TIMEOUT_MS',
    description: 'A launch command the fleet has not acknowledged (and a launch not reported) within this is a timeout: the mission ends as timeout and its incident escalates.',
    default: '15000',
    parse: int(500, 600_000),
  },
  droneRequestTimeoutMs: {
    env: 'PSS_DRONE_REQUEST_TIMEOUT_MS',
    description: 'A mission waiting in requested for a drone to free up times out after this (its incident escalates).',
    default: '600000',
    parse: int(1_000, 86_400_000),
  },
  droneSweepMs: {
    env: 'PSS_DRONE_SWEEP_MS',
    description: 'How often the fleet monitor looks for lost links, deadlines, waiting missions and tracked vessels that moved.',
    default: '1000',
    parse: int(100, 60_000),
  },
} as const satisfies Record<string, Setting<unknown>>;

export type DroneConfig = SettingsValues<typeof DRONE_SETTINGS>;

declare module '../platform/config.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merges the drone settings into Config
  interface Config extends DroneConfig {}
}

export function fleetSettings(c: DroneConfig): FleetSettings & { ackTimeoutMs: number; requestTimeoutMs: number } {
  return {
    launchBatteryPercent: c.droneLaunchBatteryPercent, lowBatteryPercent: c.droneLowBatteryPercent, telemetryIntervalMs: c.droneTelemetryIntervalMs,
    lostLinkIntervals: c.droneLostLinkIntervals, cruiseSpeedMps: c.droneCruiseSpeedMps, enduranceMinutes: c.droneEnduranceMinutes,
    ackTimeoutMs: c.droneAckTimeoutMs, requestTimeoutMs: c.droneRequestTimeoutMs,
  };
}
