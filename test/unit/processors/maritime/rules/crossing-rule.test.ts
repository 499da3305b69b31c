import { describe, expect, it } from 'vitest';
import { crossingRule } from '../../../../../processors/maritime/rules/crossing-rule.ts';
import type { RuleIntent } from '../../../../../processors/maritime/rules/rule-intent.ts';
import { newVesselState } from '../../../../../processors/maritime/rules/vessel-state.ts';
import { ZoneIndex } from '../../../../../processors/maritime/zones/zone-index.ts';
import type { ZoneRuleSet } from '../../../../../schemas/maritime-rules.ts';
import type { StoredZone } from '../../../../../schemas/zone.ts';
import { MMSI, T0 } from './zone-fixtures.ts';

// A buoy's 100 m exclusion circle; the vessel reports 1 km before and 1 km after it, a minute apart.
const buoy: StoredZone = { id: 'z-buoy', name: 'Buoy', type: 'exclusion', alert_level: 'high', active: true, geometry: { type: 'Circle', center: [12.6, 55.7], radius_meters: 100 }, created_at: '', updated_at: '' };
const index = ZoneIndex.build([buoy]);
const insideAt = (lat: number, lon: number) => index.locate(lat, lon).inside;
const zones = new Map([[buoy.id, buoy]]);
const watching = new Map<string, ZoneRuleSet>([[buoy.id, { crossing_rules: { alert_level: 'high' } }]]);
const dLat = 1 / 111.2; // about 1 km

function cross(from: [number, number], to: [number, number], ruleSets = watching): RuleIntent[] {
  const out: RuleIntent[] = [];
  const vessel = { ...newVesselState(MMSI), lat: to[0], lon: to[1] };
  crossingRule({ vessel, report: { t: T0 + 60_000, lat: to[0], lon: to[1], sog: 60, cog: 0, heading: null, position_accuracy: null }, previous: { t: T0, lat: from[0], lon: from[1], sog: 60 }, zones, ruleSets, insideAt }, out);
  return out;
}

describe('inferred zone crossing (beyond the spec)', () => {
  it('finds a zone crossed between two reports, with interpolated entry and exit', () => {
    const [event] = cross([55.7 - dLat, 12.6], [55.7 + dLat, 12.6]);
    expect(event).toMatchObject({ type: 'zone_crossing', severity: 'high', location: { zone: 'Buoy' }, metadata: { inferred: true, zone_id: 'z-buoy' } });
    const entered = Date.parse(String(event?.metadata.inferred_entry_at));
    const exited = Date.parse(String(event?.metadata.inferred_exit_at));
    // Inside from about 900 m to 1,100 m of 2,000 m: 27 s to 33 s after the first report.
    expect(entered).toBeGreaterThan(T0 + 24_000);
    expect(exited).toBeLessThan(T0 + 36_000);
    expect(entered).toBeLessThan(exited);
  });
  it('says nothing when the line passes beside the zone, when a report is inside, or where the zone has no crossing rule', () => {
    expect(cross([55.7 - dLat, 12.61], [55.7 + dLat, 12.61])).toEqual([]);
    expect(cross([55.7, 12.6], [55.7 + dLat, 12.6])).toEqual([]);
    expect(cross([55.7 - dLat, 12.6], [55.7 + dLat, 12.6], new Map())).toEqual([]);
  });
});
