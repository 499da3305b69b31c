// The simulated fleet on a moved clock: a mission flown end to end, a command executed once however often
// it is seen, and each injected fault.
import { describe, expect, it } from 'vitest';
import { FleetSimulator, type SimFault } from '../../../drones/simulator/fleet-simulator.ts';
import type { DroneCommand, DroneReport } from '../../../schemas/drone.ts';

const T0 = Date.parse('2026-11-26T06:00:00Z');
const DOCK = { id: 'd1', lon: 12.60, lat: 55.70 };
// About 630 m east of the dock.
const TARGET = { type: 'Point' as const, coordinates: [12.61, 55.70] };

function fleet(faults: SimFault[] = []) {
  return new FleetSimulator({ docks: [DOCK], speedMps: 50, telemetryHz: 1, drainPerMinute: 2, stationSeconds: 4, faults }, T0);
}

const launch = (id = 'cmd_1'): DroneCommand => ({ command_id: id, drone_id: 'drone-d1', mission_id: 'msn_1', type: 'launch', kind: 'inspect', target: TARGET, issued_at: new Date(T0).toISOString() });

/** Runs the clock for `seconds` in 250 ms steps; every report made. */
function run(sim: FleetSimulator, from: number, seconds: number): DroneReport[] {
  const out: DroneReport[] = [];
  for (let t = from + 250; t <= from + seconds * 1000; t += 250) out.push(...sim.tick(t).reports);
  return out;
}

const statuses = (reports: DroneReport[]) => reports.map((r) => (r.type === 'progress' ? r.status : r.type === 'ack' ? `ack:${r.result}` : 'evidence')).filter((s, i, all) => s !== all[i - 1]);

describe('the fleet simulator', () => {
  it('flies a mission: accepted, launched, on station, evidence, returning, completed, docked again', () => {
    const sim = fleet();
    const first = sim.command(launch(), T0);
    expect(statuses(first)).toEqual(['ack:accepted', 'launched']);
    const reports = run(sim, T0, 60);
    expect(statuses(reports)).toEqual(['launched', 'on_station', 'evidence', 'returning', 'completed']);
    expect(sim.tick(T0 + 61_000).telemetry[0]).toMatchObject({ drone_id: 'drone-d1', mode: 'docked', dock_id: 'd1' });
  });

  it('executes a command once: seen again, it is answered again with the same acknowledgement', () => {
    const sim = fleet();
    const first = sim.command(launch(), T0);
    run(sim, T0, 5);
    expect(sim.command(launch(), T0 + 5_000)).toEqual([first[0]]);
    // Flown once: on station, evidence, home; no second acknowledgement or flight.
    expect(statuses(run(sim, T0 + 5_000, 60)).filter((st) => st !== 'launched')).toEqual(['on_station', 'evidence', 'returning', 'completed']);
  });

  it.each([
    ['reject', ['ack:denied']],
    ['temporary_reject', ['ack:temporarily_rejected']],
    ['no_answer', []],
  ] as const)('%s: the launch is answered %j and nothing flies', (fault, expected) => {
    const sim = fleet([fault]);
    expect(statuses(sim.command(launch(), T0))).toEqual(expected);
    expect(run(sim, T0, 30)).toEqual([]);
  });

  it('low_battery: the drone turns home at its failsafe level and reports the mission partially completed', () => {
    const sim2 = new FleetSimulator({ docks: [DOCK], speedMps: 2, telemetryHz: 1, drainPerMinute: 5, stationSeconds: 4, faults: ['low_battery'] }, T0);
    sim2.command(launch(), T0);
    const reports = run(sim2, T0, 1_200);
    const last = reports.filter((r) => r.type === 'progress').at(-1);
    expect(last).toMatchObject({ status: 'partially_completed', reason: 'low_battery' });
  });

  it('lost_link: the drone falls silent on station', () => {
    const sim = fleet(['lost_link']);
    sim.command(launch(), T0);
    const reports = run(sim, T0, 20);
    expect(statuses(reports)).toEqual(['launched', 'on_station']);
    expect(sim.tick(T0 + 30_000).telemetry).toEqual([]);
  });

  it('abort: the drone reports aborted and flies home without a completion', () => {
    const sim = fleet();
    sim.command(launch(), T0);
    run(sim, T0, 3);
    const answer = sim.command({ command_id: 'cmd_abort', drone_id: 'drone-d1', mission_id: 'msn_1', type: 'abort', reason: 'manual', issued_at: new Date(T0).toISOString() }, T0 + 3_000);
    expect(statuses(answer)).toEqual(['ack:accepted', 'aborted']);
    expect(statuses(run(sim, T0 + 3_000, 60))).toEqual([]);
  });
});
