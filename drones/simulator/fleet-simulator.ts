// A simulated fleet behind the fleet contract (docs/drones.md): drones at their docks, flying at a set speed
// to a command's target, telemetry at a set rate, acknowledgements, progress, evidence on station, battery
// drain, and faults injected per mission (lost link, low battery, rejection, temporary rejection, no answer).
// Pure: commands in, records out, on the time the caller passes; simulator-runner.ts puts it on Kafka.
import type { DroneCommand, DroneReport, DroneTelemetry } from '../../schemas/drone.ts';
import { distanceM, targetPoint, towards, type LonLat } from '../geo.ts';

export const SIM_FAULTS = ['none', 'lost_link', 'low_battery', 'reject', 'temporary_reject', 'no_answer'] as const;
export type SimFault = (typeof SIM_FAULTS)[number];

export interface SimDock {
  id: string;
  lon: number;
  lat: number;
}

export interface SimOptions {
  docks: readonly SimDock[];
  /** Drone ids are `<prefix><dock id>`. */
  dronePrefix?: string;
  speedMps: number;
  /** Telemetry per drone per second (0.5-1). */
  telemetryHz: number;
  /** Battery percent used per minute of flight (a low_battery fault drains 20 times faster). */
  drainPerMinute: number;
  /** Seconds on station (evidence is taken half way). */
  stationSeconds: number;
  /** Faults for the coming missions, in order (a launch takes the first; then `none`). */
  faults?: SimFault[];
}

type Mode = 'docked' | 'flying' | 'on_station' | 'returning';

interface SimDrone {
  id: string;
  dock: SimDock;
  position: LonLat;
  battery: number;
  mode: Mode;
  missionId?: string;
  target?: LonLat;
  fault: SimFault;
  stationSince?: number;
  evidenceTaken: boolean;
  lowBattery: boolean;
  aborted: boolean;
  silent: boolean;
  lastTelemetry: number;
}

export interface SimOutput {
  telemetry: DroneTelemetry[];
  reports: DroneReport[];
}

const ARRIVED_M = 5;
const LOW_BATTERY_RETURN = 20;

export class FleetSimulator {
  readonly #o: SimOptions;
  readonly #drones = new Map<string, SimDrone>();
  /** Answers already given, by command id: a command seen again is answered again, never executed again. */
  readonly #answered = new Map<string, DroneReport>();
  readonly #faults: SimFault[];
  #last: number;

  constructor(options: SimOptions, now: number) {
    this.#o = options;
    this.#faults = [...(options.faults ?? [])];
    this.#last = now;
    for (const dock of options.docks) {
      const id = `${options.dronePrefix ?? 'drone-'}${dock.id}`;
      this.#drones.set(id, { id, dock, position: { lon: dock.lon, lat: dock.lat }, battery: 100, mode: 'docked', fault: 'none', evidenceTaken: false, lowBattery: false, aborted: false, silent: false, lastTelemetry: 0 });
    }
  }

  get droneIds(): string[] {
    return [...this.#drones.keys()];
  }

  /** The fault the next launch takes. */
  injectFault(fault: SimFault): void {
    this.#faults.push(fault);
  }

  /** Executes a command (once per command_id) and returns the acknowledgement, if the drone answers. */
  command(cmd: DroneCommand, now: number): DroneReport[] {
    const drone = this.#drones.get(cmd.drone_id);
    if (drone === undefined || drone.silent) return [];
    const seen = this.#answered.get(cmd.command_id);
    if (seen !== undefined) return [seen];
    const at = new Date(now).toISOString();
    const ack = (result: Extract<DroneReport, { type: 'ack' }>['result'], reason?: string): DroneReport[] => {
      const report: DroneReport = { type: 'ack', command_id: cmd.command_id, drone_id: drone.id, mission_id: cmd.mission_id, result, at, ...(reason === undefined ? {} : { reason }) };
      this.#answered.set(cmd.command_id, report);
      return [report];
    };
    switch (cmd.type) {
      case 'launch': {
        const fault = this.#faults.shift() ?? 'none';
        if (fault === 'no_answer') {
          drone.fault = 'no_answer';
          return [];
        }
        if (fault === 'reject') return ack('denied', 'no-fly zone');
        if (fault === 'temporary_reject') return ack('temporarily_rejected', 'dock cover opening');
        if (drone.mode !== 'docked' || cmd.target === undefined) return ack('denied', `drone is ${drone.mode}`);
        Object.assign(drone, { mode: 'flying', missionId: cmd.mission_id, target: targetPoint(cmd.target), fault, stationSince: undefined, evidenceTaken: false, lowBattery: false, aborted: false });
        return [...ack('accepted'), this.#progress(drone, 'launched', now)];
      }
      case 'update_target':
        if (cmd.target !== undefined && drone.missionId === cmd.mission_id && drone.mode !== 'returning') drone.target = targetPoint(cmd.target);
        return ack('accepted');
      case 'abort':
      case 'return_home': {
        if (drone.missionId !== cmd.mission_id || drone.mode === 'docked') return ack('accepted');
        drone.mode = 'returning';
        if (cmd.type === 'abort') drone.aborted = true;
        else drone.lowBattery ||= (cmd.reason ?? '').startsWith('battery');
        return [...ack('accepted'), this.#progress(drone, cmd.type === 'abort' ? 'aborted' : 'returning', now, cmd.type === 'abort' ? 'manual' : undefined)];
      }
    }
    return [];
  }

  /** Moves time to `now`: flight, battery, station work; returns telemetry due and reports made. */
  tick(now: number): SimOutput {
    const dt = Math.max(0, now - this.#last) / 1000;
    this.#last = now;
    const out: SimOutput = { telemetry: [], reports: [] };
    for (const d of this.#drones.values()) {
      if (d.silent) continue;
      this.#fly(d, dt, now, out.reports);
      if (now - d.lastTelemetry >= 1000 / this.#o.telemetryHz) {
        d.lastTelemetry = now;
        out.telemetry.push(this.#telemetry(d, now));
      }
    }
    return out;
  }

  #fly(d: SimDrone, dt: number, now: number, reports: DroneReport[]): void {
    if (d.mode === 'docked') {
      d.battery = Math.min(100, d.battery + dt * 0.5);
      return;
    }
    d.battery = Math.max(0, d.battery - (dt / 60) * this.#o.drainPerMinute * (d.fault === 'low_battery' ? 20 : 1));
    if (!d.lowBattery && d.battery <= LOW_BATTERY_RETURN && d.mode !== 'returning') {
      // The drone's own failsafe (PX4 BAT_CRIT): home now, the mission partly done.
      d.lowBattery = true;
      d.mode = 'returning';
      reports.push(this.#progress(d, 'returning', now));
    }
    if (d.mode === 'flying' && d.target !== undefined) {
      if (this.#move(d, d.target, dt)) {
        d.mode = 'on_station';
        d.stationSince = now;
        reports.push(this.#progress(d, 'on_station', now));
        if (d.fault === 'lost_link') d.silent = true;
      } else if (Math.round(now / 1000) % 2 === 0) reports.push(this.#progress(d, 'launched', now, undefined, true));
      return;
    }
    if (d.mode === 'on_station') {
      const since = (now - (d.stationSince ?? now)) / 1000;
      if (!d.evidenceTaken && since >= this.#o.stationSeconds / 2) {
        d.evidenceTaken = true;
        reports.push({ type: 'evidence', drone_id: d.id, mission_id: d.missionId ?? '', media_id: `${d.missionId}-photo-1`, media_type: 'photo', url: `https://media.fleet.example/${d.missionId}/photo-1.jpg`, position: { ...d.position }, expected: 1, uploaded: 1, at: new Date(now).toISOString() });
      }
      if (since >= this.#o.stationSeconds) {
        d.mode = 'returning';
        reports.push(this.#progress(d, 'returning', now));
      }
      return;
    }
    if (d.mode === 'returning' && this.#move(d, d.dock, dt)) {
      if (!d.aborted) reports.push(this.#progress(d, d.lowBattery ? 'partially_completed' : 'completed', now, d.lowBattery ? 'low_battery' : undefined));
      Object.assign(d, { mode: 'docked', missionId: undefined, target: undefined, fault: 'none' });
    }
  }

  /** Moves towards `to`; true on arrival. */
  #move(d: SimDrone, to: LonLat, dt: number): boolean {
    const left = distanceM(d.position, to);
    const step = this.#o.speedMps * dt;
    if (left <= Math.max(ARRIVED_M, step)) {
      d.position = { ...to };
      return true;
    }
    d.position = towards(d.position, to, step / left);
    return false;
  }

  #progress(d: SimDrone, status: Extract<DroneReport, { type: 'progress' }>['status'], now: number, reason?: 'low_battery' | 'manual', withEta = false): DroneReport {
    const to = d.mode === 'returning' ? d.dock : d.target;
    const remaining = to === undefined ? 0 : distanceM(d.position, to);
    return {
      type: 'progress', drone_id: d.id, mission_id: d.missionId ?? '', status, at: new Date(now).toISOString(),
      ...(withEta || status === 'launched' ? { remaining_distance_m: Math.round(remaining), eta_seconds: Math.round(remaining / this.#o.speedMps) } : {}),
      ...(reason === undefined ? {} : { reason }),
    };
  }

  #telemetry(d: SimDrone, now: number): DroneTelemetry {
    return {
      drone_id: d.id, dock_id: d.dock.id, at: new Date(now).toISOString(), position: { lon: d.position.lon, lat: d.position.lat },
      altitude_m: d.mode === 'docked' ? 0 : 60, battery_percent: Math.round(d.battery * 10) / 10, mode: d.mode, link: 'up',
      speed_mps: d.mode === 'docked' || d.mode === 'on_station' ? 0 : this.#o.speedMps, ...(d.missionId === undefined ? {} : { mission_id: d.missionId }),
    };
  }
}
