import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, inTransaction, migrate, type Pool } from '../../../../platform/postgres.ts';
import type { EncounterFix } from '../../../../processors/maritime/rules/encounter-rule.ts';
import type { RuleIntent } from '../../../../processors/maritime/rules/rule-intent.ts';
import { applyEncounters, CLOSED_PAIR_KEEP_DAYS, pruneClosedPairs } from '../../../../processors/maritime/store/encounter-store.ts';
import { storeRuleZone, type RuleZoneFixture } from '../../../support/rule-zone.ts';
import { testConfig, testLog } from '../../../support/stack.ts';

// The cross-instance pairing in real PostGIS: two "instances" (two connections, each with its own vessel)
// deciding on the same pair at the same moment emit exactly one encounter between them.
const T0 = Date.parse('2026-11-23T04:00:00Z');
const A = 219_005_001;
const B = 219_005_002;

describe('encounter pairing across instances (Postgres)', () => {
  let pool: Pool;
  let zones: RuleZoneFixture['zones'];
  let ruleSets: RuleZoneFixture['ruleSets'];
  let zoneId: string;

  beforeAll(async () => {
    await migrate(testConfig().databaseUrl, testLog);
    pool = createPool(testConfig().databaseUrl, 4);
    ({ zoneId, zones, ruleSets } = await storeRuleZone(pool, 'encounter-store', [16.1, 54.9], 3000, { encounter_rules: { max_distance_meters: 500, max_speed_knots: 2, min_minutes: 120, alert_level: 'medium' } }));
  });
  afterAll(async () => {
    await pool?.end();
  });

  const fix = (mmsi: number, second: number, lon: number): EncounterFix => ({ zone_id: zoneId, mmsi, t: T0 + second * 1000, lat: 54.9, lon, slow: true });
  const batch = (fixes: EncounterFix[]) => inTransaction(pool, (client) => applyEncounters(client, fixes, zones, ruleSets));

  it('emits one encounter when both instances judge the pair at the instant completing 2 h, and nothing on a replay', async () => {
    // Each instance writes its own vessel every 5 minutes (each batch commits before the next).
    const before: RuleIntent[] = [];
    for (let minute = 0; minute < 120; minute += 5) {
      before.push(...(await batch([fix(A, minute * 60, 16.1)])));
      before.push(...(await batch([fix(B, minute * 60 + 30, 16.103)])));
    }
    expect(before).toEqual([]);
    // 120:00 and 120:30 both complete the duration; the two batches run at the same time.
    const [fromA, fromB] = await Promise.all([batch([fix(A, 7_200, 16.1)]), batch([fix(B, 7_230, 16.103)])]);
    const found = [...fromA, ...fromB];
    expect(found.map((i) => [i.type, i.metadata.mmsi, i.metadata.other_mmsi, i.metadata.encounter_since])).toEqual([['encounter', A, B, new Date(T0).toISOString()]]);
    // The same batches again (a replay after a crash before the offsets' commit): nothing.
    expect([...(await batch([fix(A, 7_200, 16.1)])), ...(await batch([fix(B, 7_230, 16.103)]))]).toEqual([]);
    // B leaves its slow spell 2 km away: the episode ends, reported once.
    const apart = await batch([fix(B, 7_500, 16.13)]);
    expect(apart.map((i) => [i.type, i.metadata.duration_minutes])).toEqual([['encounter_end', 120]]);
    const { rows } = await pool.query('SELECT open, fired FROM maritime_encounter_pairs WHERE zone_id = $1', [zoneId]);
    expect(rows).toEqual([{ open: false, fired: true }]);
  });

  it('prunes closed pairs a week after their last judged instant, and keeps open and recent ones', async () => {
    const row = (lo: number, open: boolean, daysAgo: number) =>
      pool.query(
        `INSERT INTO maritime_encounter_pairs (zone_id, mmsi_lo, mmsi_hi, open, since, last_close_at, last_at, closest_m, fired)
         VALUES ($1, $2, $2 + 1, $3, now() - make_interval(days => $4 + 1), now() - make_interval(days => $4), now() - make_interval(days => $4), 120, true)`,
        [zoneId, lo, open, daysAgo],
      );
    await row(219_005_101, false, CLOSED_PAIR_KEEP_DAYS + 1);
    await row(219_005_103, false, CLOSED_PAIR_KEEP_DAYS + 30);
    await row(219_005_105, true, CLOSED_PAIR_KEEP_DAYS + 30);
    await row(219_005_107, false, CLOSED_PAIR_KEEP_DAYS - 1);
    expect(await pruneClosedPairs(pool, CLOSED_PAIR_KEEP_DAYS, 1)).toBeGreaterThanOrEqual(2);
    const { rows } = await pool.query<{ mmsi_lo: number; open: boolean }>('SELECT mmsi_lo, open FROM maritime_encounter_pairs WHERE zone_id = $1 AND mmsi_lo > 219005100 ORDER BY mmsi_lo', [zoneId]);
    expect(rows).toEqual([{ mmsi_lo: 219_005_105, open: true }, { mmsi_lo: 219_005_107, open: false }]);
  });
});
