import { describe, expect, it } from 'vitest';
import { DEFAULT_ZONE_RULES_CONFIG } from '../../../../../processors/maritime/rules/config.ts';
import { expire, step } from '../../../../../processors/maritime/rules/vessel-zone-state.ts';
import { config, every, iso, makeZone, MINUTE, MMSI, observation, run, SECOND, T0, timeline, zoneMap } from './zone-fixtures.ts';

// Monitoring zones (60 min threshold) keep dwell alerts out of the entry/exit sequences below.
const zone = makeZone({ id: 'z1', name: 'Outer Harbour', type: 'monitoring', alert_level: 'high' });
const zones = zoneMap(zone);
const IN = { in: ['z1'] };

describe('step: entry and exit', () => {
  it('emits zone_entry at the first report inside, with the zone level as severity', () => {
    const { intents } = run([{ at: T0 }, { at: T0 + 10 * SECOND, ...IN }], zones);
    expect(intents).toHaveLength(1);
    const [entry] = intents;
    expect(entry).toMatchObject({
      type: 'zone_entry',
      category: 'maritime',
      severity: 'high',
      timestamp: iso(T0 + 10 * SECOND),
      requires_action: true,
      location: { lat: 55.7, lng: 12.6, zone: 'Outer Harbour' },
      metadata: {
        mmsi: MMSI,
        vessel_name: 'NORDIC STAR',
        vessel_type: 'cargo',
        zone_id: 'z1',
        zone_name: 'Outer Harbour',
        zone_type: 'monitoring',
        alert_level: 'high',
        speed: 4.2,
        course: 181,
        dwell_minutes: 0,
        authorized: false,
        schedule_active: true,
        alerting: true,
        alert_status: 'none',
        reason: 'entered',
      },
    });
    expect(entry?.title).toBe('NORDIC STAR (MMSI 219000001) entered monitoring zone Outer Harbour');
  });

  it('maps an info zone to a low entry that needs no action', () => {
    const { intents } = run([{ at: T0, ...IN }], zoneMap({ ...zone, alert_level: 'info' }));
    expect(intents[0]).toMatchObject({ severity: 'low', requires_action: false, metadata: { alert_level: 'info' } });
  });

  it('stays silent while the vessel stays inside', () => {
    const { intents } = run(every(10 * SECOND, T0, T0 + 30 * MINUTE, IN), zones);
    expect(timeline(intents)).toEqual([`zone_entry@${iso(T0)}`]);
  });

  it('confirms an exit after 3 reports and 60 s outside, timestamped at the first report outside', () => {
    const left = T0 + 5 * MINUTE;
    const reports = [...every(10 * SECOND, T0, left, IN), ...every(10 * SECOND, left, left + 59 * SECOND)];
    expect(timeline(run(reports, zones).intents)).toEqual([`zone_entry@${iso(T0)}`]);
    const { intents } = run([...reports, { at: left + 60 * SECOND }], zones);
    expect(timeline(intents)).toEqual([`zone_entry@${iso(T0)}`, `zone_exit@${iso(left)}`]);
    expect(intents[1]).toMatchObject({
      severity: 'low',
      requires_action: false,
      metadata: { dwell_minutes: 5, exit_reason: 'left', entered_at: iso(T0), speed: 4.2 },
    });
  });

  it('needs 3 reports outside even when they are minutes apart', () => {
    const reports = [{ at: T0, ...IN }, { at: T0 + MINUTE }, { at: T0 + 4 * MINUTE }];
    expect(timeline(run(reports, zones).intents)).toEqual([`zone_entry@${iso(T0)}`]);
    const { intents } = run([...reports, { at: T0 + 7 * MINUTE }], zones);
    expect(timeline(intents)).toEqual([`zone_entry@${iso(T0)}`, `zone_exit@${iso(T0 + MINUTE)}`]);
  });

  it('emits a new entry after a confirmed exit', () => {
    const reports = [{ at: T0, ...IN }, ...every(30 * SECOND, T0 + MINUTE, T0 + 3 * MINUTE), { at: T0 + 10 * MINUTE, ...IN }];
    expect(timeline(run(reports, zones).intents)).toEqual([
      `zone_entry@${iso(T0)}`,
      `zone_exit@${iso(T0 + MINUTE)}`,
      `zone_entry@${iso(T0 + 10 * MINUTE)}`,
    ]);
  });

  it('does not flood entry/exit pairs for a vessel hovering on the edge', () => {
    const reports = every(10 * SECOND, T0, T0 + 20 * MINUTE).map((report, i) => (i % 2 === 0 ? { ...report, ...IN } : report));
    expect(timeline(run(reports, zones).intents)).toEqual([`zone_entry@${iso(T0)}`]);
  });

  it('counts an unconfirmed departure as time inside', () => {
    const reports = [{ at: T0, ...IN }, { at: T0 + 10 * MINUTE }, { at: T0 + 20 * MINUTE, ...IN }];
    const { state } = run(reports, zones);
    expect(state?.zones[0]).toMatchObject({ presence: 'inside', entered_at: T0, carried_ms: 0, departing_since: null });
  });

  it('treats a zone listed both inside and in the buffer as inside', () => {
    const buffered = zoneMap({ ...zone, buffer: { enabled: true, distance_meters: 300 } });
    const { intents } = run([{ at: T0, in: ['z1'], near: ['z1'] }], buffered);
    expect(timeline(intents)).toEqual([`zone_entry@${iso(T0)}`]);
  });

  it('handles several zones in one report', () => {
    const two = zoneMap(zone, { ...zone, id: 'z2', name: 'Inner Harbour' });
    const { intents } = run([{ at: T0, in: ['z1', 'z2'] }], two);
    expect(intents.map((intent) => intent.metadata.zone_id)).toEqual(['z1', 'z2']);
  });
});

describe('step: buffer pre-alert', () => {
  const buffered = zoneMap({ ...zone, buffer: { enabled: true, distance_meters: 500, alert_level: 'medium', message: 'Vessel approaching the outer harbour' } });
  const NEAR = { near: ['z1'] };

  it('emits zone_approach with the buffer level and message when the vessel comes within the buffer', () => {
    const { intents } = run([{ at: T0 }, { at: T0 + 10 * SECOND, ...NEAR }], buffered);
    expect(intents).toHaveLength(1);
    expect(intents[0]).toMatchObject({
      type: 'zone_approach',
      severity: 'medium',
      timestamp: iso(T0 + 10 * SECOND),
      description: 'Vessel approaching the outer harbour',
      requires_action: true,
      metadata: { alert_level: 'medium', buffer_distance_meters: 500 },
    });
  });

  it('pre-alerts once per approach, then reports the entry', () => {
    const reports = [...every(10 * SECOND, T0, T0 + 5 * MINUTE, NEAR), { at: T0 + 5 * MINUTE, ...IN }];
    expect(timeline(run(reports, buffered).intents)).toEqual([`zone_approach@${iso(T0)}`, `zone_entry@${iso(T0 + 5 * MINUTE)}`]);
  });

  it('does not pre-alert a vessel leaving the zone through the buffer', () => {
    const reports = [{ at: T0, ...IN }, ...every(10 * SECOND, T0 + MINUTE, T0 + 10 * MINUTE, NEAR)];
    expect(timeline(run(reports, buffered).intents)).toEqual([`zone_entry@${iso(T0)}`, `zone_exit@${iso(T0 + MINUTE)}`]);
  });

  it('re-arms only after the vessel has confirmedly left the buffer', () => {
    const flicker = [{ at: T0, ...NEAR }, { at: T0 + 10 * SECOND }, { at: T0 + 20 * SECOND, ...NEAR }];
    expect(timeline(run(flicker, buffered).intents)).toEqual([`zone_approach@${iso(T0)}`]);
    const away = [{ at: T0, ...NEAR }, ...every(30 * SECOND, T0 + MINUTE, T0 + 3 * MINUTE), { at: T0 + 5 * MINUTE, ...NEAR }];
    expect(timeline(run(away, buffered).intents)).toEqual([`zone_approach@${iso(T0)}`, `zone_approach@${iso(T0 + 5 * MINUTE)}`]);
  });

  it('ignores a disabled buffer', () => {
    const disabled = zoneMap({ ...zone, buffer: { enabled: false, distance_meters: 500 } });
    expect(run([{ at: T0, ...NEAR }], disabled)).toMatchObject({ intents: [], state: { zones: [] } });
  });

  it('uses one level below the zone and a default message when the buffer has neither', () => {
    const plain = zoneMap({ ...zone, alert_level: 'critical', buffer: { enabled: true, distance_meters: 250 } });
    expect(run([{ at: T0, ...NEAR }], plain).intents[0]).toMatchObject({ severity: 'high', description: 'Within 250 m of the zone.' });
  });
});

describe('step: late and duplicate reports', () => {
  it('ignores a report older than the last one and leaves the state untouched', () => {
    const { state } = run([{ at: T0, ...IN }, { at: T0 + 10 * MINUTE, ...IN }], zones);
    const before = structuredClone(state);
    const result = step(state, observation({ at: T0 + 5 * MINUTE }), zones, DEFAULT_ZONE_RULES_CONFIG);
    expect(result.late).toBe(true);
    expect(result.intents).toEqual([]);
    expect(result.state).toEqual(before);
  });

  it('ignores a second report with the same time', () => {
    const { state } = run([{ at: T0, ...IN }, { at: T0 + MINUTE }], zones);
    const result = step(state, observation({ at: T0 + MINUTE }), zones, DEFAULT_ZONE_RULES_CONFIG);
    expect(result.late).toBe(true);
    expect(result.state.zones[0]?.departing_reports).toBe(1);
  });

  it('does not re-fire an entry when an old report is replayed after the vessel left and came back', () => {
    const reports = [{ at: T0, ...IN }, ...every(30 * SECOND, T0 + MINUTE, T0 + 3 * MINUTE), { at: T0 + 10 * MINUTE, ...IN }];
    const { state, intents } = run(reports, zones);
    const replayed = run(reports, zones, DEFAULT_ZONE_RULES_CONFIG, state);
    expect(intents).toHaveLength(3);
    expect(replayed.intents).toEqual([]);
  });
});

describe('step: zones that change', () => {
  it('produces nothing for an inactive zone', () => {
    expect(run([{ at: T0, ...IN }], zoneMap({ ...zone, active: false }))).toMatchObject({ intents: [], state: { zones: [] } });
  });

  it('drops the record of a zone deactivated or deleted while the vessel is inside, without events', () => {
    const { state } = run([{ at: T0, ...IN }], zones);
    expect(run([{ at: T0 + MINUTE, ...IN }], zoneMap({ ...zone, active: false }), DEFAULT_ZONE_RULES_CONFIG, state)).toMatchObject({
      intents: [],
      state: { zones: [] },
    });
    const again = run([{ at: T0, ...IN }], zones).state;
    expect(run([{ at: T0 + MINUTE }], new Map(), DEFAULT_ZONE_RULES_CONFIG, again)).toMatchObject({ intents: [], state: { zones: [] } });
  });

  it('keeps only records worth keeping in the state', () => {
    const { state } = run([{ at: T0, near: ['z1'] }, { at: T0 + MINUTE, in: ['z1'] }], zoneMap({ ...zone, buffer: { enabled: true, distance_meters: 100 } }));
    expect(state?.zones.map((p) => p.zone_id)).toEqual(['z1']);
  });
});

describe('silence', () => {
  const cfg = config({ silence_timeout_seconds: 30 * 60 });

  it('expire closes the stay of a silent vessel with signal_lost at its last report', () => {
    const { state } = run([{ at: T0, ...IN }, { at: T0 + 10 * MINUTE, ...IN }], zones, cfg);
    if (state === undefined) throw new Error('no state');
    expect(expire(state, T0 + 39 * MINUTE, zones, cfg).intents).toEqual([]);
    const closed = expire(state, T0 + 40 * MINUTE, zones, cfg);
    expect(timeline([...closed.intents])).toEqual([`zone_exit@${iso(T0 + 10 * MINUTE)}`]);
    expect(closed.intents[0]).toMatchObject({ title: 'NORDIC STAR (MMSI 219000001): AIS signal lost in monitoring zone Outer Harbour', metadata: { exit_reason: 'signal_lost', dwell_minutes: 10 } });
    expect(closed.state?.zones[0]).toMatchObject({ presence: 'outside', exited_at: T0 + 10 * MINUTE, carried_ms: 10 * MINUTE });
  });

  it('expire forgets the vessel once no dwell can carry over', () => {
    const { state } = run([{ at: T0, ...IN }], zones, cfg);
    if (state === undefined) throw new Error('no state');
    expect(expire(state, T0 + 30 * MINUTE, zones, cfg).state).toBeDefined();
    expect(expire(state, T0 + 31 * MINUTE, zones, cfg).state).toBeUndefined();
  });

  it('expire confirms an unconfirmed departure at its first report outside', () => {
    const { state } = run([{ at: T0, ...IN }, { at: T0 + MINUTE }], zones, cfg);
    if (state === undefined) throw new Error('no state');
    const closed = expire(state, T0 + 40 * MINUTE, zones, cfg);
    expect(closed.intents[0]).toMatchObject({ timestamp: iso(T0 + MINUTE), metadata: { exit_reason: 'left' } });
  });

  it('step closes a stay left open by a silence before applying the next report, as expire would', () => {
    const reports = [{ at: T0, ...IN }, { at: T0 + 10 * MINUTE, ...IN }, { at: T0 + 45 * MINUTE, ...IN }];
    const { intents } = run(reports, zones, cfg);
    expect(timeline(intents)).toEqual([`zone_entry@${iso(T0)}`, `zone_exit@${iso(T0 + 10 * MINUTE)}`, `zone_entry@${iso(T0 + 45 * MINUTE)}`]);
    expect(intents[1]?.metadata.exit_reason).toBe('signal_lost');
    const { state } = run(reports.slice(0, 2), zones, cfg);
    if (state === undefined) throw new Error('no state');
    const expired = expire(state, T0 + 40 * MINUTE, zones, cfg);
    const after = run([reports[2] as never], zones, cfg, expired.state);
    expect([...expired.intents, ...after.intents]).toEqual(intents.slice(1));
  });
});
