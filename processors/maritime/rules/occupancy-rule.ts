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
