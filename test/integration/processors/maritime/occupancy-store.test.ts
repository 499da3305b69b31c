import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, inTransaction, migrate, type Pool } from '../../../../platform/postgres.ts';
import type { OccupancyChange } from '../../../../processors/maritime/rules/occupancy-rule.ts';
import { applyOccupancy } from '../../../../processors/maritime/store/occupancy-store.ts';
import { storeRuleZone, type RuleZoneFixture } from '../../../support/rule-zone.ts';
import { testConfig, testLog } from '../../../support/stack.ts';

// Occupancy counted across instances (two connections, each with its own vessels): the alert's time does
// not depend on which instance got to its vessels first. Before, it was the time of the report that
// happened to be counted last, so a lagging instance counting an earlier entry put the alert back in time.
const at = (hhmm: string) => Date.parse(`2026-11-21T${hhmm}:00Z`);
const WEEK = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;

describe('occupancy across instances (Postgres)', () => {
  let pool: Pool;
  let zones: RuleZoneFixture['zones'];
  let ruleSets: RuleZoneFixture['ruleSets'];
  let zoneId: string;

  beforeAll(async () => {
    await migrate(testConfig().databaseUrl, testLog);
    pool = createPool(testConfig().databaseUrl, 4);
    ({ zoneId, zones, ruleSets } = await storeRuleZone(pool, 'occupancy-store', [16.3, 54.9], 2000, { time_rules: { schedules: [{ name: 'capacity', days: [...WEEK], max_vessels: 2, alert_level: 'medium' }] } }));
  });
  afterAll(async () => {
    await pool?.end();
  });

  const enters = (mmsi: number, hhmm: string): OccupancyChange => ({ zone_id: zoneId, mmsi, inside: true, at: at(hhmm) });
  const batch = (changes: OccupancyChange[]) => inTransaction(pool, (client) => applyOccupancy(client, changes, zones, ruleSets));

  it('raises at the latest counted entry, whichever instance counts last', async () => {
    // Instance A is live: its vessels entered at 11:11 and 11:12. Instance B lags: its vessel entered at 11:10.
    expect(await batch([enters(219_006_002, '11:11'), enters(219_006_003, '11:12')])).toEqual([]);
    const raised = await batch([enters(219_006_001, '11:10')]);
    expect(raised.map((i) => [i.type, i.timestamp, i.metadata.occupancy])).toEqual([['occupancy_exceeded', new Date(at('11:12')).toISOString(), 3]]);
  });
});
