import { Ajv } from 'ajv';
import formats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { evaluatePositions, expireSilent } from '../../../../processors/maritime/evaluate-batch.ts';
import { DEFAULT_ZONE_RULES_CONFIG } from '../../../../processors/maritime/rules/config.ts';
import type { VesselState } from '../../../../processors/maritime/rules/vessel-state.ts';
import { VesselDirectory } from '../../../../processors/maritime/vessel-directory.ts';
import type { ZoneSnapshot } from '../../../../processors/maritime/zones/zone-catalog.ts';
import { ZoneIndex } from '../../../../processors/maritime/zones/zone-index.ts';
import { securityEventSchema } from '../../../../schemas/event.ts';
import type { StoredZone } from '../../../../schemas/zone.ts';
import { position, TRACK_SOURCE } from '../../../support/tracks.ts';

const on = (partition: number, p: ReturnType<typeof position>) => ({ partition, position: p });

const zone: StoredZone = {
  id: 'zone_a', name: 'Berth A', type: 'exclusion', alert_level: 'high', active: true,
  geometry: { type: 'Circle', center: [12.6, 55.7], radius_meters: 500 },
  created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z',
};
const snapshot: ZoneSnapshot = { index: ZoneIndex.build([zone]), rules: new Map([[zone.id, zone]]), zoneRules: new Map(), dwellTime: undefined, version: '1' };
const at = (minute: number) => new Date(Date.UTC(2026, 10, 20, 10, minute));

describe('evaluatePositions', () => {
  it('keeps the previous fix of vessels nowhere near a zone in memory, and stores nothing for them', () => {
    const states = new Map<number, VesselState>();
    const outcome = evaluatePositions([on(0, position(1, at(0), 11.0, 55.0))], states, snapshot, new VesselDirectory(), DEFAULT_ZONE_RULES_CONFIG);
    expect(outcome).toMatchObject({ events: [], changed: [], late: 0 });
    expect(states.get(1)).toMatchObject({ lat: 55.0, lon: 11.0, zones: [] });
  });

  it('turns an entry into events with deterministic ids, named from the vessel directory', () => {
    const directory = new VesselDirectory();
    directory.apply({ mmsi: 2, name: 'INTRUDER', ship_category: 'cargo' });
    const run = () => evaluatePositions([on(0, position(2, at(0), 12.6, 55.7))], new Map(), snapshot, directory, DEFAULT_ZONE_RULES_CONFIG);
    const first = run();
    expect(first.events.map((e) => e.type)).toEqual(['zone_entry', 'dwell_threshold']);
    expect(first.events[0]).toMatchObject({ source_module: 'maritime.zones', source_device: TRACK_SOURCE, metadata: { vessel_name: 'INTRUDER', vessel_type: 'cargo' } });
    expect(first.changed.map((s) => s.mmsi)).toEqual([2]);
    expect(run().events.map((e) => e.id)).toEqual(first.events.map((e) => e.id));
  });

  it('builds events of the spec\'s shape: assigned_to "" while unassigned, incident_id null', () => {
    const { events } = evaluatePositions([on(0, position(5, at(0), 12.6, 55.7))], new Map(), snapshot, new VesselDirectory(), DEFAULT_ZONE_RULES_CONFIG);
    expect(events.length).toBeGreaterThan(0);
    const ajv = new Ajv({ strict: false });
    formats.default(ajv);
    const validate = ajv.compile({ ...securityEventSchema, $id: undefined });
    for (const event of events) {
      expect(event).toMatchObject({ assigned_to: '', incident_id: null });
      expect(validate(event), JSON.stringify(validate.errors)).toBe(true);
    }
  });

  it('reports stays in zones with time rules: the entry, then each report from inside as a stay that goes on', () => {
    const timed: ZoneSnapshot = { ...snapshot, zoneRules: new Map([[zone.id, { time_rules: { schedules: [{ name: 'cap', days: ['mon'], max_vessels: 1, alert_level: 'low' }] } }]]) };
    const states = new Map<number, VesselState>();
    const first = evaluatePositions([on(0, position(6, at(0), 12.6, 55.7))], states, timed, new VesselDirectory(), DEFAULT_ZONE_RULES_CONFIG);
    expect(first.occupancy).toEqual([{ zone_id: zone.id, mmsi: 6, inside: true, at: at(0).getTime() }]);
    // Inside a zone before it had time rules: the next report names the stay, so the store can count it late.
    const untimed = new Map<number, VesselState>();
    evaluatePositions([on(0, position(7, at(0), 12.6, 55.7))], untimed, snapshot, new VesselDirectory(), DEFAULT_ZONE_RULES_CONFIG);
    const next = evaluatePositions([on(0, position(7, at(1), 12.6, 55.7))], untimed, timed, new VesselDirectory(), DEFAULT_ZONE_RULES_CONFIG);
    expect(next.occupancy).toEqual([{ zone_id: zone.id, mmsi: 7, inside: true, at: at(1).getTime(), still: true }]);
  });

  it('counts a report older than the vessel\'s newest as late and changes nothing', () => {
    const states = new Map<number, VesselState>();
    const config = DEFAULT_ZONE_RULES_CONFIG;
    evaluatePositions([on(0, position(3, at(5), 12.6, 55.7))], states, snapshot, new VesselDirectory(), config);
    const outcome = evaluatePositions([on(0, position(3, at(4), 12.6, 55.7))], states, snapshot, new VesselDirectory(), config);
    expect(outcome).toMatchObject({ events: [], changed: [], late: 1 });
    expect(outcome.watermarks).toEqual(new Map([[0, at(4).getTime()]]));
  });

  it('closes the stay of a vessel silent past the timeout as of the event-time watermark', () => {
    const states = new Map<number, VesselState>();
    const config = DEFAULT_ZONE_RULES_CONFIG;
    evaluatePositions([on(0, position(4, at(0), 12.6, 55.7))], states, snapshot, new VesselDirectory(), config);
    expect(expireSilent(states, () => at(10).getTime(), snapshot, config).events).toEqual([]);
    const later = at(0).getTime() + config.silence_timeout_seconds * 1000;
    const expired = expireSilent(states, () => later, snapshot, config);
    expect(expired.events.map((e) => [e.type, e.metadata.exit_reason])).toEqual([['zone_exit', 'signal_lost']]);
    // The record stays, outside, for the reset window: a return within it carries the dwell over.
    expect(expired.changed.map((s) => s.zones.map((z) => z.presence))).toEqual([['outside']]);
  });

  it('ignores a report dated far after its receipt, so it cannot hide the vessel\'s later reports', () => {
    const states = new Map<number, VesselState>();
    const config = DEFAULT_ZONE_RULES_CONFIG;
    const future = { ...position(5, at(0), 12.6, 55.7), reported_at: '2099-01-01T00:00:00.000Z' };
    const first = evaluatePositions([on(0, future)], states, snapshot, new VesselDirectory(), config);
    expect(first).toMatchObject({ events: [], future: 1 });
    expect(first.watermarks.size).toBe(0);
    const genuine = evaluatePositions([on(0, position(5, at(1), 12.6, 55.7))], states, snapshot, new VesselDirectory(), config);
    expect(genuine.events.map((e) => e.type)).toEqual(['zone_entry', 'dwell_threshold']);
  });

  it('expires a vessel only by the watermark of its own partition', () => {
    const states = new Map<number, VesselState>();
    const config = DEFAULT_ZONE_RULES_CONFIG;
    evaluatePositions([on(1, position(6, at(0), 12.6, 55.7))], states, snapshot, new VesselDirectory(), config);
    const farAhead = at(0).getTime() + 2 * config.silence_timeout_seconds * 1000;
    // Partition 0 has run far ahead; vessel 6 reports on partition 1, which has not.
    const watermarks = new Map([[0, farAhead], [1, at(0).getTime()]]);
    const partitionOf = new Map([[6, 1]]);
    expect(expireSilent(states, (mmsi) => watermarks.get(partitionOf.get(mmsi)!), snapshot, config).events).toEqual([]);
  });
});

describe('evaluatePositions: static data learned after a vessel\'s report', () => {
  const berth: StoredZone = { ...zone, id: 'zone_tugs', name: 'Tug berth', type: 'restricted', authorized_vessels: [{ vessel_types: ['tug'] }] };
  const tugs: ZoneSnapshot = { index: ZoneIndex.build([berth]), rules: new Map([[berth.id, berth]]), zoneRules: new Map(), dwellTime: undefined, version: '1' };
  const config = DEFAULT_ZONE_RULES_CONFIG;
  const entered = () => {
    const states = new Map<number, VesselState>();
    const directory = new VesselDirectory();
    const first = evaluatePositions([on(0, position(7, at(0), 12.6, 55.7))], states, tugs, directory, config);
    expect(first.events.map((e) => [e.type, e.severity])).toEqual([['zone_entry', 'high']]);
    directory.apply({ mmsi: 7, name: 'LATE TUG', ship_category: 'tug' });
    return { states, directory };
  };

  it('re-evaluates a vessel it holds as soon as the directory learns its type, without a report of the vessel', () => {
    const { states, directory } = entered();
    const outcome = evaluatePositions([], states, tugs, directory, config, directory.takeLearned());
    expect(outcome.events.map((e) => [e.type, e.severity, e.timestamp, e.source_device, e.metadata.reason])).toEqual([
      ['zone_entry', 'low', at(0).toISOString(), 'ais-static', 'authorized'],
    ]);
    expect(outcome.changed.map((s) => [s.mmsi, s.vessel_name, s.vessel_type])).toEqual([[7, 'LATE TUG', 'tug']]);
  });

  it('re-evaluates at the vessel\'s next report what it did not hold then, with the same event id', () => {
    const eager = entered();
    const learnedAtOnce = evaluatePositions([], eager.states, tugs, eager.directory, config, eager.directory.takeLearned()).events;
    const lazy = entered();
    const atNextReport = evaluatePositions([on(0, position(7, at(1), 12.6, 55.7))], lazy.states, tugs, lazy.directory, config).events;
    expect(atNextReport.map((e) => e.id)).toEqual(learnedAtOnce.map((e) => e.id));
  });
});
