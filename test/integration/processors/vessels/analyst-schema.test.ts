import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventId } from '../../../../events/event-id.ts';
import { storeEvents } from '../../../../events/store.ts';
import { createPool, inTransaction, type Pool } from '../../../../platform/postgres.ts';
import { ZoneStore } from '../../../../processors/maritime/zones/zone-store.ts';
import { analystExamples } from '../../../../processors/vessels/analyst-examples.ts';
import { applyAnalystLogin } from '../../../../processors/vessels/analyst-role.ts';
import type { PositionRow } from '../../../../processors/vessels/position-rows.ts';
import { staticRows } from '../../../../processors/vessels/static-rows.ts';
import { createPartitions, insertPositions, updateLastPositions, upsertStatic } from '../../../../processors/vessels/vessel-store.ts';
import type { SecurityEvent } from '../../../../schemas/event.ts';
import type { ZoneCreate } from '../../../../schemas/zone.ts';
import { scratchDatabase, type ScratchDatabase } from '../../../support/scratch-database.ts';

// Issue 13: the analyst schema against a seeded database of its own (exact rows), the five queries
// of docs/analysts.md, and the pss_analyst role's rights.
const NOW = Date.now();
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const utc = (iso: string) => Date.parse(iso);

const ZONES: ZoneCreate[] = [
  { name: 'Approach channel', active: true, type: 'monitoring', alert_level: 'low', geometry: { type: 'Corridor', centerline: [[12.6, 55.6], [12.7, 55.6]], width_meters: 400 } },
  { name: 'North anchorage', active: true, type: 'anchorage', alert_level: 'info', geometry: { type: 'Circle', center: [12.65, 55.7], radius_meters: 1000 } },
  { name: 'Berth 7', active: true, type: 'restricted', alert_level: 'high', geometry: { type: 'Polygon', coordinates: [[[12.799, 55.649], [12.801, 55.649], [12.801, 55.651], [12.799, 55.651], [12.799, 55.649]]] } },
];

const V = { runner: 219000101, late: 219000102, edges: 219000103, berthNear: 219000104, berthFar: 219000105, longStay: 219000106, stillThere: 219000107, oldStay: 219000108, berthStay: 219000109, dark: 219000110, talking: 219000111, darkOutside: 219000112, darkLongAgo: 219000113 };

const row = (mmsi: number, at: number, lon: number, lat: number): PositionRow => ({ mmsi, reportedAt: at, source: 'seed', lat, lon, sog: 5, cog: 0, heading: null, navStatus: 0, msgType: 1, receivedAt: at });
/** One report a minute from `start`, stepping by (dLon, dLat) degrees. */
const leg = (mmsi: number, start: number, n: number, lon: number, lat: number, dLon: number, dLat: number) =>
  Array.from({ length: n }, (_, i) => row(mmsi, start + i * MIN, lon + i * dLon, lat + i * dLat));

function zoneEvent(type: 'zone_entry' | 'zone_exit', mmsi: number, zone: { id: string; name: string; type: string }, at: number, enteredAt: number, severity = 'low'): SecurityEvent {
  return {
    id: eventId(`${type}:${zone.id}:${mmsi}:${at}`), type, timestamp: new Date(at).toISOString(), category: 'maritime', severity: severity as SecurityEvent['severity'],
    source_module: 'maritime.zones', source_device: 'seed', title: `${type} ${mmsi}`, description: '',
    location: { lat: 55.7, lng: 12.65, zone: zone.name },
    metadata: {
      mmsi, vessel_name: `VESSEL ${mmsi}`, zone_id: zone.id, zone_name: zone.name, zone_type: zone.type, entered_at: new Date(enteredAt).toISOString(),
      dwell_minutes: Math.floor((at - enteredAt) / MIN), alerting: severity !== 'low', authorized: false, ...(type === 'zone_exit' ? { exit_reason: 'left' } : {}),
    },
    requires_action: severity !== 'low', assigned_to: '', incident_id: null,
  };
}

describe('the analyst schema', () => {
  let db: ScratchDatabase;
  let pool: Pool;
  let analyst: pg.Client;
  const zone: Record<string, { id: string; name: string; type: string }> = {};

  beforeAll(async () => {
    db = await scratchDatabase('analyst');
    pool = createPool(db.url, 2);
    for (const body of ZONES) {
      const stored = await new ZoneStore(pool).create(body);
      zone[body.name] = { id: stored.id, name: stored.name, type: stored.type };
    }
    const positions = [
      // Crosses the channel (centre line 55.6, 200 m each side) northwards at 02:30-02:40: inside at 02:34-02:36.
      ...leg(V.runner, utc('2026-11-20T02:30:00Z'), 11, 12.65, 55.595, 0, 0.001),
      // Crosses at 05:00, after the window.
      ...leg(V.late, utc('2026-11-20T05:00:00Z'), 11, 12.62, 55.595, 0, 0.001),
      // In the channel at 01:59 and at 04:00: the window is [02:00, 04:00).
      row(V.edges, utc('2026-11-20T01:59:00Z'), 12.66, 55.6), row(V.edges, utc('2026-11-20T04:00:00Z'), 12.66, 55.6),
      // Passes Berth 7 about 220 m north of it, and another vessel 1 km north.
      ...leg(V.berthNear, utc('2026-11-20T10:00:00Z'), 10, 12.795, 55.653, 0.001, 0),
      ...leg(V.berthFar, utc('2026-11-20T10:00:00Z'), 10, 12.795, 55.66, 0.001, 0),
      // The near vessel again the next day: another track, not that day's.
      ...leg(V.berthNear, utc('2026-11-21T10:00:00Z'), 3, 12.795, 55.653, 0.001, 0),
    ];
    await createPartitions(pool, ['2026-11-19', '2026-11-20', '2026-11-21']);
    expect(await insertPositions(pool, positions)).toBe(positions.length);
    await upsertStatic(pool, staticRows([
      { kind: 'static', msg_type: 5, mmsi: V.runner, source: 'seed', reported_at: '2026-11-20T00:00:00Z', received_at: '2026-11-20T00:00:00Z', raw: ['x'], name: 'CHANNEL RUNNER', ship_category: 'cargo' },
      { kind: 'static', msg_type: 5, mmsi: V.dark, source: 'seed', reported_at: '2026-11-20T00:00:00Z', received_at: '2026-11-20T00:00:00Z', raw: ['x'], name: 'DARK HORSE' },
    ]));
    // Last positions for "went dark": in the anchorage 2 h ago, 5 min ago, 10 days ago; outside any zone 2 h ago.
    await updateLastPositions(pool, [
      row(V.dark, NOW - 2 * HOUR, 12.65, 55.7), row(V.talking, NOW - 5 * MIN, 12.651, 55.7),
      row(V.darkOutside, NOW - 2 * HOUR, 11.0, 55.0), row(V.darkLongAgo, NOW - 10 * DAY, 12.65, 55.701),
    ]);
    const anchorage = zone['North anchorage']!;
    const berth = zone['Berth 7']!;
    const channel = zone['Approach channel']!;
    const day10 = utc('2026-11-10T08:00:00Z');
    await inTransaction(pool, (client) => storeEvents(client, [
      // Anchorage stays: 600 min three days ago; 120 min so far (still there); one 9 days ago (not this week).
      zoneEvent('zone_entry', V.longStay, anchorage, NOW - 3 * DAY, NOW - 3 * DAY),
      zoneEvent('zone_exit', V.longStay, anchorage, NOW - 3 * DAY + 600 * MIN, NOW - 3 * DAY),
      zoneEvent('zone_entry', V.stillThere, anchorage, NOW - 120 * MIN, NOW - 120 * MIN),
      zoneEvent('zone_entry', V.oldStay, anchorage, NOW - 9 * DAY, NOW - 9 * DAY),
      zoneEvent('zone_exit', V.oldStay, anchorage, NOW - 8 * DAY, NOW - 9 * DAY),
      // A long stay at a berth is not an anchorage stay.
      zoneEvent('zone_entry', V.berthStay, berth, NOW - 2 * DAY, NOW - 2 * DAY, 'high'),
      // 10 and 11 November: per zone per day.
      zoneEvent('zone_entry', V.runner, berth, day10, day10, 'high'),
      zoneEvent('zone_exit', V.runner, berth, day10 + 30 * MIN, day10),
      zoneEvent('zone_entry', V.late, berth, day10 + HOUR, day10 + HOUR, 'critical'),
      zoneEvent('zone_entry', V.late, berth, day10 + DAY, day10 + DAY),
      zoneEvent('zone_entry', V.edges, channel, day10, day10),
      zoneEvent('zone_exit', V.edges, channel, day10 + 5 * MIN, day10),
    ]));
    await applyAnalystLogin(db.url, 'analyst-test-password');
    const url = new URL(db.url);
    url.username = 'pss_analyst';
    url.password = 'analyst-test-password';
    analyst = new pg.Client({ connectionString: url.toString() });
    await analyst.connect();
  });
  afterAll(async () => {
    await analyst?.end();
    await pool?.end();
    await db?.drop();
  });

  const example = (name: string) => {
    const found = analystExamples().find((e) => e.name === name);
    if (!found) throw new Error(`no example ${name}`);
    return found.sql;
  };
  /** Runs as the analyst role, as an analyst would. */
  const run = async (name: string) => (await analyst.query(example(name))).rows;

  it('answers which vessels crossed the approach channel between 02:00 and 04:00', async () => {
    expect(await run('crossed_channel')).toEqual([
      { mmsi: V.runner, name: 'CHANNEL RUNNER', first_seen: new Date('2026-11-20T02:34:00Z'), last_seen: new Date('2026-11-20T02:36:00Z'), reports: '3' },
    ]);
  });

  it('answers the longest stays at anchorage this week, counting a stay still going until now', async () => {
    const rows = await run('longest_anchorage_stays');
    expect(rows.map((r) => [r.mmsi, r.zone_name, r.exited_at === null])).toEqual([
      [V.longStay, 'North anchorage', false],
      [V.stillThere, 'North anchorage', true],
    ]);
    expect(rows[0].minutes).toBe(600);
    expect(rows[1].minutes).toBeGreaterThanOrEqual(120);
  });

  it('answers which tracks came within 500 m of a berth that day, one line per vessel', async () => {
    const rows = await run('tracks_near_berth');
    expect(rows.map((r) => [r.mmsi, r.reports, r.first_report_at, r.last_report_at])).toEqual([[V.berthNear, '10', new Date('2026-11-20T10:00:00Z'), new Date('2026-11-20T10:09:00Z')]]);
    // Nine legs of 0.001 degrees of longitude at 55.653 N, 63 m each.
    expect(Number(rows[0].metres)).toBeGreaterThan(560);
    expect(Number(rows[0].metres)).toBeLessThan(575);
  });

  it('answers how many events each zone had per day', async () => {
    const rows = await run('events_per_zone_per_day');
    expect(rows.map((r) => [r.zone, r.day.toISOString?.() ?? r.day, r.events, r.high_or_critical])).toEqual([
      ['Approach channel', new Date(2026, 10, 10).toISOString(), '2', '0'],
      ['Berth 7', new Date(2026, 10, 10).toISOString(), '3', '2'],
      ['Berth 7', new Date(2026, 10, 11).toISOString(), '1', '0'],
    ]);
  });

  it('answers which vessels went dark inside a zone', async () => {
    const rows = await run('dark_in_zone');
    expect(rows.map((r) => [r.mmsi, r.name, r.zone])).toEqual([[V.dark, 'DARK HORSE', 'North anchorage']]);
  });

  it('gives each track its points in time order with M = epoch seconds', async () => {
    const { rows } = await analyst.query<{ m: number[]; type: string }>(
      `SELECT GeometryType(track) AS type, ARRAY(SELECT ST_M(g.geom) FROM ST_DumpPoints(track) AS g) AS m
         FROM analyst.vessel_tracks WHERE mmsi = $1 AND day = '2026-11-20'`, [V.runner]);
    expect(rows[0]?.type).toBe('LINESTRINGM');
    expect(rows[0]?.m).toEqual(Array.from({ length: 11 }, (_, i) => utc('2026-11-20T02:30:00Z') / 1000 + i * 60));
  });

  it('documents every view and every column of the schema', async () => {
    const { rows } = await pool.query<{ object: string }>(
      `SELECT c.relname || coalesce('.' || a.attname, '') AS object
         FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace
         LEFT JOIN pg_attribute AS a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
        WHERE n.nspname = 'analyst' AND c.relkind = 'v'
          AND coalesce(col_description(c.oid, a.attnum), CASE WHEN a.attname IS NULL THEN obj_description(c.oid, 'pg_class') END) IS NULL
        UNION ALL
       SELECT c.relname FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace
        WHERE n.nspname = 'analyst' AND c.relkind = 'v' AND obj_description(c.oid, 'pg_class') IS NULL`,
    );
    expect(rows).toEqual([]);
    const { rows: views } = await pool.query("SELECT count(*)::int AS n FROM pg_views WHERE schemaname = 'analyst'");
    expect(views[0].n).toBeGreaterThanOrEqual(8);
  });

  describe('the pss_analyst role', () => {
    const refusal = async (sql: string) => {
      try {
        await analyst.query(sql);
        return 'allowed';
      } catch (err) {
        return (err as { code?: string }).code;
      }
    };

    it('reads every view of the analyst schema', async () => {
      for (const view of ['positions', 'vessel_tracks', 'vessels', 'zones', 'events', 'zone_incursions', 'dwell_history', 'current_presence']) {
        expect(await refusal(`SELECT * FROM analyst.${view} LIMIT 1`), view).toBe('allowed');
      }
      const { rows } = await analyst.query("SELECT h3_cover FROM analyst.zones WHERE name = 'Berth 7'");
      expect(rows[0].h3_cover.length).toBeGreaterThan(0);
    });

    it('cannot read credentials, secrets or the tables beneath the views', async () => {
      for (const table of ['api_keys', 'operators', 'oauth_clients', 'security_events', 'vessel_positions', 'vessels', 'zones', 'maritime_vessel_state', 'pgmigrations']) {
        expect(await refusal(`SELECT * FROM public.${table} LIMIT 1`), table).toBe('42501');
      }
      expect(await refusal("SELECT pss_set_analyst_login('x')")).toBe('42501');
      expect(await refusal("SELECT rolpassword FROM pg_authid")).toBe('42501');
    });

    it('cannot write anything, even after turning its read-only default off', async () => {
      // Read-only by default, so not even a temporary table of its own session.
      expect((await analyst.query('SHOW default_transaction_read_only')).rows[0].default_transaction_read_only).toBe('on');
      expect(await refusal('CREATE TEMP TABLE mine (x int)')).toBe('25006');
      expect(await refusal('DELETE FROM analyst.vessels')).toBe('42501');
      await analyst.query('SET default_transaction_read_only = off');
      try {
        expect(await refusal('DELETE FROM analyst.vessels')).toBe('42501');
        expect(await refusal("INSERT INTO analyst.positions (mmsi) VALUES (1)")).toBe('42501');
        expect(await refusal('UPDATE public.vessels SET name = NULL')).toBe('42501');
        expect(await refusal('CREATE TABLE analyst.mine (x int)')).toBe('42501');
        expect(await refusal('CREATE TABLE public.mine (x int)')).toBe('42501');
        expect(await refusal('CREATE SCHEMA mine')).toBe('42501');
        expect(await refusal('CREATE VIEW analyst.mine AS SELECT 1')).toBe('42501');
      } finally {
        await analyst.query('RESET default_transaction_read_only');
      }
    });
  });
});
