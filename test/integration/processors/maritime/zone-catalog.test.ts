import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replaceZoneRules } from '../../../../processors/maritime/rules-config/rule-store.ts';
import { ZoneCatalog } from '../../../../processors/maritime/zones/zone-catalog.ts';
import { ZoneStore } from '../../../../processors/maritime/zones/zone-store.ts';
import { createPool, migrate, type Pool } from '../../../../platform/postgres.ts';
import { testConfig, testLog, unique } from '../../../support/stack.ts';

// A zone created and its time rules written a moment later (the API's POST, then PUT .../rules): the
// rules' NOTIFY came while the reload the zone's NOTIFY started was still under way, after it had read
// the rules. The notification joined that reload and was lost, so the processors ran without the rules
// until the next poll (5 s), and the vessels anchoring meanwhile were never counted for the time rule
// (test/e2e/occupancy-window.test.ts timed out under load). Polling is kept out of it here (60 s).
describe('the zone catalog', () => {
  const databaseUrl = testConfig().databaseUrl;
  let pool: Pool;
  let catalog: ZoneCatalog | undefined;
  const zones: string[] = [];
  /** Armed: the catalog's next read of the rule sets keeps its answer until `release`. */
  let hold: { reached: () => void; release: Promise<void> } | undefined;

  beforeAll(async () => {
    await migrate(databaseUrl, testLog);
    pool = createPool(databaseUrl, 4, testLog);
  });
  afterAll(async () => {
    await catalog?.stop();
    for (const id of zones) await new ZoneStore(pool).delete(id);
    await pool?.end();
  });

  /** The pool, except that a held read of maritime_zone_rules answers late: a slow reload, as under load. */
  const slowRuleReads = (target: Pool): Pool =>
    new Proxy(target, {
      get(t, prop) {
        if (prop !== 'query') {
          const value: unknown = Reflect.get(t, prop, t);
          return typeof value === 'function' ? value.bind(t) : value;
        }
        return async (text: string, params?: unknown[]) => {
          const result = params === undefined ? await t.query(text) : await t.query(text, params);
          const armed = hold;
          if (armed !== undefined && text.startsWith('SELECT zone_id, rules FROM maritime_zone_rules')) {
            hold = undefined;
            armed.reached();
            await armed.release;
          }
          return result;
        };
      },
    });

  it('reloads again for a change notified while a reload was under way, without waiting for the poll', async () => {
    catalog = new ZoneCatalog(slowRuleReads(pool), testLog, 60_000);
    await catalog.start();

    let release = () => {};
    const reached = new Promise<void>((resolve) => {
      hold = { reached: resolve, release: new Promise<void>((r) => (release = r)) };
    });
    const zone = await new ZoneStore(pool).create({
      name: unique('catalog anchorage'), type: 'anchorage', alert_level: 'low', active: true,
      geometry: { type: 'Circle', center: [14.9, 54.9], radius_meters: 1_000 },
    });
    zones.push(zone.id);
    // The zone's NOTIFY started a reload, which has read the rule sets (none for the zone yet).
    await reached;
    const problems = await replaceZoneRules(pool, zone.id, { time_rules: { schedules: [{ name: 'pilot change', days: ['mon'], hours: '09:00-10:00', max_vessels: 2, alert_level: 'high' }] } });
    expect(problems).toEqual([]);
    // Time for the rules' NOTIFY to reach the catalog while that reload is still held.
    await sleep(1_000);
    release();

    await expect.poll(() => catalog!.snapshot.rules.has(zone.id), { timeout: 10_000 }).toBe(true);
    await expect.poll(() => catalog!.snapshot.zoneRules.get(zone.id)?.time_rules?.schedules.map((s) => s.name), { timeout: 10_000 }).toEqual(['pilot change']);
  });
});
