// A stored anchorage with one rule set, in the shapes the maritime stores take (zones and rule sets by
// zone id), for tests that drive those stores on real PostGIS as processor instances would.
import type { Pool } from '../../platform/postgres.ts';
import type { RuleZone } from '../../processors/maritime/rules/config.ts';
import { ZoneStore } from '../../processors/maritime/zones/zone-store.ts';
import type { ZoneRuleSet } from '../../schemas/maritime-rules.ts';
import { unique } from './stack.ts';

export interface RuleZoneFixture {
  zoneId: string;
  zones: Map<string, RuleZone>;
  ruleSets: Map<string, ZoneRuleSet>;
}

export async function storeRuleZone(pool: Pool, name: string, center: [number, number], radius_meters: number, rules: ZoneRuleSet): Promise<RuleZoneFixture> {
  const zone = await new ZoneStore(pool).create({ name: unique(name), type: 'anchorage', alert_level: 'low', active: true, geometry: { type: 'Circle', center, radius_meters } });
  return { zoneId: zone.id, zones: new Map([[zone.id, zone as RuleZone]]), ruleSets: new Map([[zone.id, rules]]) };
}
