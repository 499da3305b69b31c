// Drone choice, and lost-link and low-battery detection on a clock moved by hand.
import { describe, expect, it } from 'vitest';
import { chooseDrone, etaOf, lostLinkDue, lowBatteryCleared, lowBatteryCrossed, unavailability, type DroneView, type FleetSettings } from '../../../drones/fleet-rules.ts';
import { distanceM } from '../../../drones/geo.ts';
import { ManualClock } from '../../support/clock.ts';

const S: FleetSettings = { launchBatteryPercent: 60, lowBatteryPercent: 25, telemetryIntervalMs: 2_000, lostLinkIntervals: 5, cruiseSpeedMps: 10, enduranceMinutes: 30 };
const TARGET = { lon: 12.60, lat: 55.70 };
const T0 = Date.parse('2026-11-26T06:00:00Z');

function drone(id: string, over: Partial<DroneView> = {}): DroneView {
  return { id, dockId: `dock-${id}`, state: 'docked', batteryPercent: 100, position: { lon: 12.61, lat: 55.70 }, link: 'up', missionId: null, lastSeen: T0, speedMps: null, ...over };
}

describe('drone choice', () => {
  it('takes the available drone nearest by flight time, not by distance', () => {
    // b is nearer but slow; a is farther and fast.
    const a = drone('a', { position: { lon: 12.62, lat: 55.70 }, speedMps: 30 });
    const b = drone('b', { position: { lon: 12.61, lat: 55.70 }, speedMps: 5 });
    const choice = chooseDrone([b, a], TARGET, T0, S);
    expect(choice.drone?.id).toBe('a');
    expect(choice.drone === undefined ? 0 : choice.flightSeconds).toBeCloseTo(distanceM(a.position, TARGET) / 30, 6);
  });

  it('takes the cruise speed for a drone that reports none or 0 (docked)', () => {
    const docked = drone('a', { speedMps: 0 });
    const choice = chooseDrone([docked], TARGET, T0, S);
    expect(choice.drone === undefined ? 0 : choice.flightSeconds).toBeCloseTo(distanceM(docked.position, TARGET) / S.cruiseSpeedMps, 6);
  });

  it('breaks ties by id', () => {
    expect(chooseDrone([drone('b'), drone('a')], TARGET, T0, S).drone?.id).toBe('a');
  });

  it.each([
    ['flying', { state: 'flying' }, 'is flying'],
    ['on a mission', { missionId: 'msn_1' }, 'on mission msn_1'],
    ['a degraded link', { link: 'degraded' }, 'no link'],
    ['silent too long', { lastSeen: T0 - 10_001 }, 'no link'],
    ['a low battery', { batteryPercent: 59 }, 'below 60%'],
    ['too far for its battery', { position: { lon: 13.5, lat: 55.7 } }, 'cannot reach'],
  ] as const)('passes over a drone %s, with the reason', (_name, over, reason) => {
    expect(unavailability(drone('x', over), TARGET, T0, S)).toContain(reason);
    const choice = chooseDrone([drone('x', over)], TARGET, T0, S);
    expect(choice.drone).toBeUndefined();
    expect(choice.drone === undefined ? choice.reasons : []).toEqual([expect.stringContaining(reason)]);
  });

  it('takes an idle drone at exactly the launch threshold and silent for exactly the allowed time', () => {
    expect(unavailability(drone('x', { state: 'idle', batteryPercent: 60, lastSeen: T0 - 10_000 }), TARGET, T0, S)).toBeUndefined();
  });

  it('says so when no drone has reported', () => {
    expect(chooseDrone([], TARGET, T0, S)).toEqual({ drone: undefined, reasons: ['no drone has reported telemetry'] });
  });

  it('gives an ETA from the reported speed, or the cruise speed when hovering', () => {
    const from = { lon: 12.61, lat: 55.70 };
    expect(etaOf(from, TARGET, 20, S).etaSeconds).toBeCloseTo(distanceM(from, TARGET) / 20, 6);
    expect(etaOf(from, TARGET, 0, S).etaSeconds).toBeCloseTo(distanceM(from, TARGET) / 10, 6);
  });
});

describe('lost link on a moved clock', () => {
  it('is due after the configured number of missed intervals, once, and only for a drone in the air or on a mission', () => {
    const clock = new ManualClock(T0);
    const flying = { lastSeen: T0, state: 'flying', missionId: 'msn_1' };
    let raised = false;
    const raisedAt: number[] = [];
    for (let i = 0; i < 30; i++) {
      clock.advance(500);
      if (lostLinkDue(flying, raised, clock.now(), S)) {
        raised = true;
        raisedAt.push(clock.now() - T0);
      }
    }
    expect(raisedAt).toEqual([10_500]);
    expect(lostLinkDue({ lastSeen: T0, state: 'docked', missionId: null }, false, T0 + 60_000, S)).toBe(false);
    expect(lostLinkDue({ lastSeen: T0, state: 'docked', missionId: 'msn_2' }, false, T0 + 60_000, S)).toBe(true);
    expect(lostLinkDue(flying, false, T0 + 10_000, S)).toBe(false);
  });
});

describe('low battery', () => {
  it('is raised once when an airborne drone reaches the threshold, and cleared when charged to the launch level', () => {
    let raised = false;
    const events: number[] = [];
    for (const [state, battery] of [['flying', 40], ['flying', 26], ['flying', 25], ['flying', 20], ['returning', 15], ['docked', 15], ['charging', 59], ['docked', 60], ['flying', 24]] as const) {
      if (lowBatteryCrossed(state, battery, raised, S)) {
        raised = true;
        events.push(battery);
      } else if (raised && lowBatteryCleared(battery, S)) raised = false;
    }
    expect(events).toEqual([25, 24]);
  });

  it('is not raised for a drone on the ground', () => {
    expect(lowBatteryCrossed('docked', 10, false, S)).toBe(false);
    expect(lowBatteryCrossed('charging', 10, false, S)).toBe(false);
  });
});
