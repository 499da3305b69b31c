import { describe, expect, it } from 'vitest';
import type { RuleZone } from '../../../../../processors/maritime/rules/config.ts';
import { config, every, iso, makeZone, MINUTE, MMSI, run, SECOND, T0, timeline, zoneMap } from './zone-fixtures.ts';

const IN = { in: ['z1'] };
const zoneOf = (overrides: Partial<RuleZone>): Map<string, RuleZone> => zoneMap(makeZone({ id: 'z1', ...overrides }));
const at = (text: string): number => Date.parse(text);

describe('authorized vessels', () => {
  const guarded = zoneOf({
    type: 'restricted',
    alert_level: 'high',
    authorized_vessels: [{ mmsi_list: [MMSI] }, { vessel_types: ['pilot'] }],
    buffer: { enabled: true, distance_meters: 400, alert_level: 'medium' },
  });

  it('records the entry of an MMSI-authorized vessel as a low event that needs no action', () => {
    const { intents } = run([{ at: T0, ...IN }], guarded);
    expect(intents).toHaveLength(1);
    expect(intents[0]).toMatchObject({
      type: 'zone_entry',
      severity: 'low',
      requires_action: false,
      title: 'NORDIC STAR (MMSI 219000001) entered restricted zone North Basin (authorized)',
      metadata: { authorized: true, alerting: false, alert_level: 'high' },
    });
  });

  it('raises no pre-alert and no dwell alert for an authorized vessel, and records its exit', () => {
    const reports = [
      { at: T0 - MINUTE, near: ['z1'] },
      ...every(MINUTE, T0, T0 + 100 * MINUTE, IN),
      ...every(MINUTE, T0 + 100 * MINUTE, T0 + 103 * MINUTE),
    ];
    expect(timeline(run(reports, guarded).intents)).toEqual([`zone_entry@${iso(T0)}`, `zone_exit@${iso(T0 + 100 * MINUTE)}`]);
  });

  it('authorizes by vessel category from static data', () => {
    const { intents } = run(every(MINUTE, T0, T0 + 30 * MINUTE, { ...IN, mmsi: 219_555_555, category: 'Pilot' }), guarded);
    expect(timeline(intents)).toEqual([`zone_entry@${iso(T0)}`]);
    expect(intents[0]?.metadata.authorized).toBe(true);
  });

  it('alerts for a vessel that is not authorized', () => {
    const { intents } = run(every(MINUTE, T0, T0 + 16 * MINUTE, { ...IN, mmsi: 219_555_555, category: 'tug' }), guarded);
    expect(timeline(intents)).toEqual([`zone_entry@${iso(T0)}`, `dwell_threshold@${iso(T0 + 15 * MINUTE)}`]);
    expect(intents[0]).toMatchObject({ severity: 'high', metadata: { authorized: false } });
  });

  it('produces nothing at all when unalerted presence is not recorded', () => {
    const quiet = config({ record_unalerted_presence: false });
    const reports = [...every(MINUTE, T0, T0 + 20 * MINUTE, IN), ...every(MINUTE, T0 + 20 * MINUTE, T0 + 23 * MINUTE)];
    expect(run(reports, guarded, quiet).intents).toEqual([]);
  });
});

describe('schedules', () => {
  const officeHours = { days: ['mon', 'tue', 'wed', 'thu', 'fri'], hours: '08:00-17:00', timezone: 'UTC' } as const;

  it('records an entry outside the schedule as a low event and raises no dwell alert', () => {
    const evening = at('2024-06-03T18:00:00Z');
    const { intents } = run(every(MINUTE, evening, evening + 30 * MINUTE, IN), zoneOf({ type: 'restricted', schedule: { ...officeHours, days: [...officeHours.days] } }));
    expect(intents).toHaveLength(1);
    expect(intents[0]).toMatchObject({
      severity: 'low',
      title: 'NORDIC STAR (MMSI 219000001) entered restricted zone North Basin (outside schedule)',
      metadata: { schedule_active: false, alerting: false },
    });
  });

  it('never alerts in a zone whose schedule is always_on false', () => {
    const { intents } = run(every(MINUTE, T0, T0 + 30 * MINUTE, IN), zoneOf({ type: 'exclusion', schedule: { always_on: false } }));
    expect(timeline(intents)).toEqual([`zone_entry@${iso(T0)}`]);
    expect(intents[0]?.severity).toBe('low');
  });

  it('alerts a vessel already inside when the schedule comes into force, with the dwell counted from then', () => {
    const nightly = zoneOf({ type: 'exclusion', alert_level: 'critical', schedule: { days: ['mon'], hours: '22:00-06:00', timezone: 'UTC' } });
    const nine = at('2024-06-03T21:00:00Z');
    const { intents } = run(every(MINUTE, nine, nine + 120 * MINUTE, IN), nightly);
    expect(intents.map((intent) => [intent.type, intent.timestamp, intent.severity])).toEqual([
      ['zone_entry', iso(nine), 'low'],
      ['zone_entry', iso(nine + 60 * MINUTE), 'critical'],
      ['dwell_threshold', iso(nine + 60 * MINUTE), 'medium'],
      ['dwell_escalation', iso(nine + 75 * MINUTE), 'high'],
      ['dwell_escalation', iso(nine + 90 * MINUTE), 'high'],
    ]);
    expect(intents[1]?.metadata).toMatchObject({ reason: 'alerting_started', dwell_minutes: 60 });
    expect(intents[1]?.key).not.toBe(intents[0]?.key);
  });

  it('holds due rungs while the schedule is off and fires them when it is back in force', () => {
    const daily = zoneOf({ type: 'restricted', schedule: { days: ['mon', 'tue'], hours: '16:00-17:00', timezone: 'UTC' } });
    const start = at('2024-06-03T16:50:00Z');
    const dwell = run(every(10 * MINUTE, start, at('2024-06-04T16:05:00Z'), IN), daily).intents.filter((intent) => intent.type.startsWith('dwell_'));
    expect(dwell.map((intent) => intent.timestamp)).toEqual(Array(4).fill(iso(at('2024-06-04T16:00:00Z'))));
  });

  it('treats the hours after midnight as part of the previous day window', () => {
    const fridayNight = zoneOf({ type: 'restricted', schedule: { days: ['fri'], hours: '22:00-06:00', timezone: 'Europe/Copenhagen' } });
    expect(run([{ at: at('2024-06-08T00:00:00Z'), ...IN }], fridayNight).intents[0]?.metadata.alerting).toBe(true); // Sat 02:00
    expect(run([{ at: at('2024-06-07T00:00:00Z'), ...IN }], fridayNight).intents[0]?.metadata.alerting).toBe(false); // Fri 02:00
  });

  it('follows local time on the day the clocks go forward', () => {
    const saturdayNight = zoneOf({ type: 'restricted', schedule: { days: ['sat'], hours: '22:00-06:00', timezone: 'Europe/Copenhagen' } });
    expect(run([{ at: at('2024-03-31T03:30:00Z'), ...IN }], saturdayNight).intents[0]?.metadata.alerting).toBe(true); // 05:30 CEST
    expect(run([{ at: at('2024-03-31T04:30:00Z'), ...IN }], saturdayNight).intents[0]?.metadata.alerting).toBe(false); // 06:30 CEST
  });

  it('does not pre-alert outside the schedule', () => {
    const buffered = zoneOf({ schedule: { always_on: false }, buffer: { enabled: true, distance_meters: 100 } });
    expect(run([{ at: T0, near: ['z1'] }, { at: T0 + 10 * SECOND, near: ['z1'] }], buffered).intents).toEqual([]);
  });
});
