import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, migrate, type Pool } from '../../../../platform/postgres.ts';
import { evaluatePositions, expireSilent, type PartitionedPosition } from '../../../../processors/maritime/evaluate-batch.ts';
import { DEFAULT_ZONE_RULES_CONFIG } from '../../../../processors/maritime/rules/config.ts';
import { feedAsOf, newFeedState } from '../../../../processors/maritime/rules/feed-silence.ts';
import type { VesselState } from '../../../../processors/maritime/rules/vessel-state.ts';
import { applyOccupancy } from '../../../../processors/maritime/store/occupancy-store.ts';
import { VesselDirectory } from '../../../../processors/maritime/vessel-directory.ts';
import { ruleEvent } from '../../../../processors/maritime/zone-events.ts';
import type { ZoneSnapshot } from '../../../../processors/maritime/zones/zone-catalog.ts';
import { ZoneIndex } from '../../../../processors/maritime/zones/zone-index.ts';
import { ZoneStore } from '../../../../processors/maritime/zones/zone-store.ts';
import type { ZoneRuleSet } from '../../../../schemas/maritime-rules.ts';
import type { SecurityEvent } from '../../../../schemas/event.ts';
import type { StoredZone, ZoneCreate } from '../../../../schemas/zone.ts';
import { testConfig, testLog, unique } from '../../../support/stack.ts';
import { position } from '../../../support/tracks.ts';

// Issue 12 "Done means": a crafted port morning through the same pipeline the processor runs (zone step,
// behaviour rules, housekeeping, occupancy counted in real Postgres), checked event by event, twice.
const T0 = Date.parse('2026-11-23T06:00:00Z'); // a Monday
const TANKER = 257000001;
const TUG = 257000002;
const DARK = 257000003;
const JUMPER = 257000004;
const ANCHORED = [257000011, 257000012, 257000013];
const tag = unique('morning');

const ZONES: Record<string, ZoneCreate> = {
  berth: { name: `Cruise berth ${tag}`, type: 'restricted', alert_level: 'high', active: true, geometry: { type: 'Polygon', coordinates: [[[12.700, 55.700], [12.710, 55.700], [12.710, 55.705], [12.700, 55.705], [12.700, 55.700]]] } },
  harbour: { name: `Inner harbour ${tag}`, type: 'monitoring', alert_level: 'low', active: true, geometry: { type: 'Circle', center: [12.600, 55.700], radius_meters: 3000 } },
  anchorage: { name: `North anchorage ${tag}`, type: 'anchorage', alert_level: 'info', active: true, geometry: { type: 'Circle', center: [12.600, 55.800], radius_meters: 1000 } },
};

/** Reports of one vessel every `every` seconds from minute `from` to minute `to` (exclusive), moving east at `sog`. */
function reports(mmsi: number, from: number, to: number, every: number, lon: number, lat: number, sog: number) {
  const out = [];
  for (let s = from * 60; s < to * 60; s += every) out.push(position(mmsi, new Date(T0 + s * 1000), lon + (sog * (s - from * 60)) / 3600 / 60 / Math.cos((lat * Math.PI) / 180), lat, sog));
  return out;
}

function morning() {
  return [
    // A tanker sails into the berth where tankers are denied.
    ...reports(TANKER, 5, 15, 30, 12.690, 55.7025, 6),
    // A tug speeds through the harbour (limit 6 kn) for four minutes, then slows down.
    ...reports(TUG, 0, 4, 30, 12.590, 55.695, 10),
    ...reports(TUG, 4, 30, 30, 12.590 + (10 * 240) / 3600 / 60 / Math.cos((55.695 * Math.PI) / 180), 55.695, 4),
    // A cargo vessel goes dark for 10 minutes while the others keep reporting.
    ...reports(DARK, 0, 10, 30, 12.600, 55.705, 3),
    ...reports(DARK, 20, 30, 30, 12.602, 55.705, 3),
    // One report of this vessel lands 5 nm north: a position jump.
    ...reports(JUMPER, 0, 30, 30, 12.610, 55.690, 2).map((p) => (p.reported_at === new Date(T0 + 12 * 60_000).toISOString() ? { ...p, lat: p.lat! + 5 / 60 } : p)),
    // Three vessels anchor where two are allowed in the morning.
    ...reports(ANCHORED[0]!, 5, 30, 60, 12.600, 55.800, 0),
    ...reports(ANCHORED[1]!, 7, 30, 60, 12.601, 55.800, 0),
    ...reports(ANCHORED[2]!, 9, 30, 60, 12.602, 55.800, 0),
  ].sort((a, b) => a.reported_at.localeCompare(b.reported_at) || a.mmsi - b.mmsi);
}

describe('a crafted port morning', () => {
  const databaseUrl = testConfig().databaseUrl;
  let pool: Pool;
  let snapshot: ZoneSnapshot;

  beforeAll(async () => {
    await migrate(databaseUrl, testLog);
    pool = createPool(databaseUrl, 2);
    const store = new ZoneStore(pool);
    const zones: Record<string, StoredZone> = {};
    for (const [key, body] of Object.entries(ZONES)) zones[key] = await store.create(body);
    const { berth, harbour, anchorage } = zones as Record<'berth' | 'harbour' | 'anchorage', StoredZone>;
    const rules = new Map<string, ZoneRuleSet>([
      [berth.id, { vessel_type_rules: { denied_types: ['tanker'], alert_on_denied_entry: true, alert_level: 'critical' } }],
      [harbour.id, { speed_rules: { max_speed_knots: 6, alert_on_violation: true, alert_level: 'medium' }, ais_rules: { alert_on: [{ ais_loss_seconds: 300 }, { position_jump_nm: 1 }], alert_level: 'high' } }],
      [anchorage.id, { time_rules: { schedules: [{ name: 'morning', days: ['mon', 'tue', 'wed', 'thu', 'fri'], hours: '05:00-12:00', max_vessels: 2, alert_level: 'high' }] } }],
    ]);
    snapshot = { index: ZoneIndex.build(Object.values(zones)), rules: new Map(Object.values(zones).map((z) => [z.id, z])), zoneRules: rules, dwellTime: undefined, version: 'scenario' };
  });
  afterAll(async () => {
    await pool?.end();
  });

  /** The processor's path, one batch per minute of reports, housekeeping after each; rolled back at the end. */
  async function replay(): Promise<SecurityEvent[]> {
    const directory = new VesselDirectory();
    directory.apply({ mmsi: TANKER, name: 'NORDIC OIL', ship_category: 'tanker' });
    directory.apply({ mmsi: TUG, name: 'SVITZER HAMLET', ship_category: 'tug' });
    const states = new Map<number, VesselState>();
    const feed = newFeedState();
    feed.caughtUp = true;
    const events: SecurityEvent[] = [];
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const byMinute = new Map<number, PartitionedPosition[]>();
      for (const p of morning()) {
        const minute = Math.floor((Date.parse(p.reported_at) - T0) / 60_000);
        byMinute.set(minute, [...(byMinute.get(minute) ?? []), { partition: 0, position: p }]);
      }
      for (const minute of [...byMinute.keys()].sort((a, b) => a - b)) {
        const outcome = evaluatePositions(byMinute.get(minute)!, states, snapshot, directory, DEFAULT_ZONE_RULES_CONFIG, directory.takeLearned(), feed);
        const house = expireSilent(states, feedAsOf(feed), snapshot, DEFAULT_ZONE_RULES_CONFIG, feed);
        const crowded = await applyOccupancy(client, [...outcome.occupancy, ...house.occupancy], snapshot.rules, snapshot.zoneRules);
        events.push(...outcome.events, ...house.events, ...crowded.map((i) => ruleEvent(i, 'occupancy')));
      }
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
    return events;
  }

  const summary = (events: SecurityEvent[]) =>
    events.map((e) => [e.type, e.metadata.mmsi ?? '-', e.timestamp.slice(11, 19), e.severity, String(e.location.zone ?? '-').replace(` ${tag}`, '')].join(' '));

  it('raises exactly the expected events, and the same ones on a second run', async () => {
    const first = await replay();
    const second = await replay();
    expect(second).toEqual(first);
    expect(summary(first)).toEqual([
      'zone_entry 257000002 06:00:00 low Inner harbour',
      'zone_entry 257000003 06:00:00 low Inner harbour',
      'zone_entry 257000004 06:00:00 low Inner harbour',
      // The tug: one episode (confirmed at its second report over 6 kn), ended two clear reports and a minute later.
      'speed_anomaly 257000002 06:00:30 medium Inner harbour',
      'speed_anomaly_end 257000002 06:05:00 low Inner harbour',
      'zone_entry 257000011 06:05:00 low North anchorage',
      'zone_entry 257000012 06:07:00 low North anchorage',
      // The tanker (high: the berth's alert level) and the type rule's own critical alert.
      'zone_entry 257000001 06:08:30 high Cruise berth',
      'vessel_type_violation 257000001 06:08:30 critical Cruise berth',
      // Unauthorized presence (15) and a denied type (30): a risk score of 45.
      'risk_score_change 257000001 06:08:30 medium -',
      // The third vessel at anchor: one alert for the zone, not one per vessel.
      'zone_entry 257000013 06:09:00 low North anchorage',
      'occupancy_exceeded - 06:09:00 high North anchorage',
      // One report 5 nm off: a jump; its return to the track is not a second one.
      'position_jump 257000004 06:12:00 high Inner harbour',
      'risk_score_change 257000004 06:12:00 low -',
      'zone_exit 257000001 06:12:00 low Cruise berth',
      // Dark from its last report at 06:09:30: lost 300 s later, found while the others report; back at 06:20.
      'ais_gap 257000003 06:14:30 high Inner harbour',
      'ais_gap_end 257000003 06:20:00 low Inner harbour',
      'zone_exit 257000002 06:23:00 low Inner harbour',
    ]);
    const jump = first.find((e) => e.type === 'position_jump')!;
    expect(jump.metadata).toMatchObject({ likely_cause: 'spoofing', trigger: 'position_jump_nm', distance_nm: 5 });
    const gapEnd = first.find((e) => e.type === 'ais_gap_end')!;
    expect(gapEnd.metadata).toMatchObject({ gap_duration_seconds: 630 });
    expect(first.find((e) => e.type === 'risk_score_change')!.metadata).toMatchObject({ risk_score: 45, previous_risk_score: 0, factors: ['zone_entry', 'vessel_type_violation'] });
    const crowded = first.find((e) => e.type === 'occupancy_exceeded')!;
    expect(crowded.metadata).toMatchObject({ occupancy: 3, max_vessels: 2, schedule: 'morning' });
  });
});
