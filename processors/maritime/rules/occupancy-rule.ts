import type { TimeRule } from '../../../schemas/maritime-rules.ts';
import type { RuleZone } from './config.ts';
import { severityOfAlertLevel } from './event-severity.ts';
import { iso, type RuleIntent } from './rule-intent.ts';
import { isScheduleInForce } from './schedule.ts';

export type TimeSchedule = TimeRule['schedules'][number];

/** A vessel starting or ending a stay inside a zone that has time rules. */
export interface OccupancyChange {
  zone_id: string;
  mmsi: number;
  inside: boolean;
  at: number;
  /**
   * Not a crossing: the vessel reported from inside a zone it was already in. Counted only if it is not
   * yet (the zone got its time rules while the vessel was inside); then it changes the count at `at`.
   */
  still?: true;
}

/**
 * Whether a time-rule schedule window is in force: its days and hours (the whole day without hours) in
 * the zone's schedule time zone, UTC when the zone has none.
 */
export function windowInForce(schedule: TimeSchedule, zone: RuleZone, at_ms: number): boolean {
  const timezone = zone.schedule !== undefined && 'timezone' in zone.schedule ? zone.schedule.timezone : 'UTC';
  return isScheduleInForce({ days: schedule.days, hours: schedule.hours ?? '00:00-24:00', timezone }, at_ms);
}

/**
 * Watches schedule windows open and close in event time, so occupancy is judged then too and not only at
 * the next entry or exit (a window opening on a zone already over its limit alerts when it opens). It
 * remembers, per zone and schedule, whether the window was in force at the last event time it confirmed;
 * a fresh watch (a start, a restart) names every zone with time rules once, which re-judges them all.
 */
export class ScheduleWatch {
  readonly #inForce = new Map<string, boolean>();

  /**
   * The zones (with time rules) whose windows opened or closed by `at_ms`, and `confirm`, to be called
   * once their occupancy has been judged and committed: a batch that fails names them again on its retry.
   */
  due(zones: ReadonlyMap<string, RuleZone>, ruleSets: ReadonlyMap<string, { time_rules?: { schedules: readonly TimeSchedule[] } }>, at_ms: number): { zones: string[]; confirm: () => void } {
    const seen: [string, boolean][] = [];
    const flipped: string[] = [];
    for (const [zone_id, set] of ruleSets) {
      const zone = zones.get(zone_id);
      if (zone === undefined || set.time_rules === undefined) continue;
      let changed = false;
      for (const schedule of set.time_rules.schedules) {
        const key = `${zone_id}\u0000${schedule.name}`;
        const now = windowInForce(schedule, zone, at_ms);
        if (this.#inForce.get(key) === now) continue;
        seen.push([key, now]);
        changed = true;
      }
      if (changed) flipped.push(zone_id);
    }
    return { zones: flipped, confirm: () => seen.forEach(([key, now]) => this.#inForce.set(key, now)) };
  }
}

/**
 * Spec item 6: alert when occupancy exceeds `max_vessels` in a window, and again only after it has
 * cleared (fallen to the limit, or the window ended) and is exceeded anew.
 */
export function occupancyDecision(exceeded: boolean, count: number, schedule: TimeSchedule, inForce: boolean): 'raise' | 'clear' | 'keep' {
  const over = inForce && count > schedule.max_vessels;
  if (over && !exceeded) return 'raise';
  if (!over && exceeded) return 'clear';
  return 'keep';
}

export function occupancyIntent(zone: RuleZone, schedule: TimeSchedule, count: number, at_ms: number, position: { lat: number; lng: number }): RuleIntent {
  const level = schedule.alert_level ?? 'medium';
  return {
    key: `occupancy_exceeded:${zone.id}:${schedule.name}:${iso(at_ms)}`,
    type: 'occupancy_exceeded',
    category: 'maritime',
    severity: severityOfAlertLevel(level),
    timestamp: iso(at_ms),
    title: `${count} vessels in ${zone.type} zone ${zone.name}, above the ${schedule.max_vessels} allowed (${schedule.name})`,
    description: `Schedule "${schedule.name}" (${schedule.days.join(', ')} ${schedule.hours ?? 'all day'}) allows ${schedule.max_vessels} vessels.`,
    location: { ...position, zone: zone.name },
    requires_action: level === 'medium' || level === 'high' || level === 'critical',
    metadata: { zone_id: zone.id, zone_name: zone.name, zone_type: zone.type, schedule: schedule.name, max_vessels: schedule.max_vessels, occupancy: count, alert_level: level },
  };
}
