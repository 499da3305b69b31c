// The in-memory zone test (H3 cover + exact geometry) against PostGIS geography, on random points
// drawn near the edges of every geometry type (issue 5, item 3: tolerance 1 m).
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Position, StoredZone, ZoneGeometry } from '../../../../../schemas/zone.ts';
import { storedShapeOf } from '../../../../../processors/maritime/geometry/construct.ts';
import { spheroidDestination } from '../../../../../processors/maritime/geometry/sphere.ts';
import { ZoneIndex } from '../../../../../processors/maritime/zones/zone-index.ts';
import { UPSERT_ZONE_SQL, upsertZoneParams, LOCATE_POSITION_SQL } from '../../../../../processors/maritime/zones/zone-sql.ts';
import { seeded } from '../../../../support/seeded-random.ts';

const POINTS_PER_ZONE = 10_000;
const TOLERANCE_M = 1;

function databaseUrl(): string {
  let provided: string | undefined;
  try {
    provided = inject('databaseUrl');
  } catch {
    provided = undefined;
  }
  return provided ?? process.env.PSS_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/pss_test';
}

function zone(id: string, geometry: ZoneGeometry, buffer: number): StoredZone {
  const now = new Date().toISOString();
  return {
    id,
    name: id,
    type: 'restricted',
    alert_level: 'high',
    active: true,
    geometry,
    buffer: { enabled: true, distance_meters: buffer, alert_level: 'medium', message: 'approaching' },
    created_at: now,
    updated_at: now,
  };
}

const ZONES: StoredZone[] = [
  zone(
    'polygon-with-hole',
    {
      type: 'Polygon',
      coordinates: [
        [[12.575, 55.68], [12.61, 55.678], [12.625, 55.69], [12.6, 55.695], [12.615, 55.705], [12.58, 55.71], [12.59, 55.695], [12.575, 55.68]],
        [[12.595, 55.684], [12.608, 55.686], [12.604, 55.69], [12.595, 55.684]],
      ],
    },
    250,
  ),
  zone(
    'multipolygon',
    {
      type: 'MultiPolygon',
      coordinates: [
        [[[12.66, 55.7], [12.69, 55.7], [12.69, 55.72], [12.66, 55.72], [12.66, 55.7]]],
        [
          [[12.7, 55.7], [12.74, 55.705], [12.73, 55.73], [12.705, 55.725], [12.7, 55.7]],
          [[12.71, 55.708], [12.725, 55.71], [12.72, 55.72], [12.71, 55.708]],
        ],
      ],
    },
    400,
  ),
  zone('circle', { type: 'Circle', center: [12.7, 55.62], radius_meters: 900 }, 300),
  zone('large-circle', { type: 'Circle', center: [11.0, 57.0], radius_meters: 30_000 }, 2_000),
  zone(
    'corridor',
    { type: 'Corridor', centerline: [[12.45, 55.55], [12.5, 55.58], [12.47, 55.6], [12.55, 55.61]], width_meters: 400 },
    250,
  ),
  zone(
    'antimeridian-polygon',
    { type: 'Polygon', coordinates: [[[179.8, -16.9], [-179.85, -16.95], [-179.8, -16.7], [179.9, -16.6], [179.8, -16.9]]] },
    500,
  ),
  zone('arctic-corridor', { type: 'Corridor', centerline: [[15.3, 78.2], [15.8, 78.25], [16.2, 78.2]], width_meters: 1_000 }, 400),
];

/** Random points near the zone's edges and near its buffer's edge. */
function pointsNear(z: StoredZone, count: number, random: () => number): Position[] {
  const shape = storedShapeOf(z.geometry);
  const rings = shape.type === 'Polygon' ? shape.coordinates : shape.coordinates.flat();
  const buffer = z.buffer?.distance_meters ?? 0;
  const out: Position[] = [];
  while (out.length < count) {
    const ring = rings[Math.floor(random() * rings.length)] as Position[];
    const i = Math.floor(random() * (ring.length - 1));
    const [a, b] = [ring[i] as Position, ring[i + 1] as Position];
    const t = random();
    const pick = random();
    const d =
      pick < 0.15 ? random() * 3 : pick < 0.5 ? random() * 20 : pick < 0.85 ? buffer + (random() - 0.5) * 40 : random() * (buffer + 500);
    const [lat, lon] = spheroidDestination(a[1] + t * (b[1] - a[1]), a[0] + t * (b[0] - a[0]), random() * 360, d);
    out.push([lon, lat]);
  }
  return out;
}

interface Truth {
  id: number;
  zone_id: string;
  inside: boolean;
  within_reach: boolean;
  fn_inside: boolean;
  fn_buffer: boolean;
  shape_covers: boolean;
  core_excess: number | null;
  edge_distance: number | null;
  zone_distance: number | null;
  buffer_m: number;
}

const TRUTH_SQL = `
SELECT p.id, p.zone_id, z.buffer_m,
  CASE z.geometry_type WHEN 'Circle' THEN ST_DWithin(z.center, p.g, z.reach_m)
                       WHEN 'Corridor' THEN ST_DWithin(z.centerline, p.g, z.reach_m)
                       ELSE ST_Covers(z.shape, p.g) END AS inside,
  CASE z.geometry_type WHEN 'Circle' THEN ST_DWithin(z.center, p.g, z.reach_m + z.buffer_m)
                       WHEN 'Corridor' THEN ST_DWithin(z.centerline, p.g, z.reach_m + z.buffer_m)
                       ELSE ST_DWithin(z.shape, p.g, z.buffer_m) END AS within_reach,
  zone_covers(z, p.g) AS fn_inside,
  zone_buffer_holds(z, p.g) AS fn_buffer,
  ST_Covers(z.shape, p.g) AS shape_covers,
  CASE WHEN z.geometry_type IN ('Circle', 'Corridor')
       THEN ST_Distance(coalesce(z.center, z.centerline), p.g) - z.reach_m END AS core_excess,
  CASE WHEN z.geometry_type IN ('Polygon', 'MultiPolygon')
       THEN ST_Distance(ST_Boundary(z.shape::geometry)::geography, p.g) END AS edge_distance,
  CASE WHEN z.geometry_type IN ('Polygon', 'MultiPolygon') THEN ST_Distance(z.shape, p.g) END AS zone_distance
FROM test_points AS p JOIN zones AS z ON z.id = p.zone_id
ORDER BY p.id`;

/** Within 1 m of the zone's edge or of its buffer's edge, by PostGIS's own distances. */
function ambiguous(t: Truth): boolean {
  if (t.core_excess !== null) return Math.abs(t.core_excess) < TOLERANCE_M || Math.abs(t.core_excess - t.buffer_m) < TOLERANCE_M;
  if ((t.edge_distance ?? 0) < TOLERANCE_M) return true;
  return !t.inside && Math.abs((t.zone_distance ?? 0) - t.buffer_m) < TOLERANCE_M;
}

describe('zone geometry agrees with PostGIS geography', () => {
  const client = new pg.Client({ connectionString: databaseUrl() });
  const schema = `zone_geometry_test_${process.pid}_${Date.now().toString(36)}`;

  beforeAll(async () => {
    await client.connect();
    await client.query('CREATE EXTENSION IF NOT EXISTS postgis');
    await client.query(`CREATE SCHEMA ${pg.escapeIdentifier(schema)}`);
    await client.query(`SET search_path TO ${pg.escapeIdentifier(schema)}, public`);
    const ddl = readFileSync(new URL('../../../../../sql/migrations/0003_zones.sql', import.meta.url), 'utf8').split('-- Down Migration')[0] as string;
    await client.query(ddl);
    for (const z of ZONES) await client.query(UPSERT_ZONE_SQL, upsertZoneParams(z));
    await client.query('CREATE TABLE test_points (id integer PRIMARY KEY, zone_id text NOT NULL, g geography(Point, 4326) NOT NULL)');
  });

  afterAll(async () => {
    await client.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`).catch(() => undefined);
    await client.end();
  });

  it('places points near every edge of every geometry type exactly as ST_Covers / ST_DWithin do', async () => {
    const random = seeded(20_251_121);
    const points = ZONES.flatMap((z) => pointsNear(z, POINTS_PER_ZONE, random).map((p) => ({ zone: z.id, p })));
    await client.query(
      `INSERT INTO test_points (id, zone_id, g)
       SELECT t.id, t.zone_id, ST_SetSRID(ST_MakePoint(t.lon, t.lat), 4326)::geography
       FROM unnest($1::int[], $2::text[], $3::float8[], $4::float8[]) AS t(id, zone_id, lon, lat)`,
      [points.map((_, i) => i), points.map((x) => x.zone), points.map((x) => x.p[0]), points.map((x) => x.p[1])],
    );
    const truths = (await client.query<Truth>(TRUTH_SQL)).rows;
    const index = ZoneIndex.build(ZONES);
    expect(index.rejected).toEqual([]);

    const stats = new Map(ZONES.map((z) => [z.id, { points: 0, compared: 0, within1m: 0, inside: 0, inBuffer: 0, disagree: 0, near5m: 0, shapeDisagree: 0, sqlFnDisagree: 0 }]));
    const examples: string[] = [];
    for (const t of truths) {
      const s = stats.get(t.zone_id)!;
      const [lon, lat] = (points[t.id] as { p: Position }).p;
      s.points++;
      const inBuffer = !t.inside && t.within_reach && t.buffer_m > 0;
      if (t.fn_inside !== t.inside || t.fn_buffer !== inBuffer) s.sqlFnDisagree++;
      if (ambiguous(t)) {
        s.within1m++;
        continue;
      }
      s.compared++;
      const distances = t.core_excess !== null ? [Math.abs(t.core_excess), Math.abs(t.core_excess - t.buffer_m)] : [t.edge_distance ?? Infinity, Math.abs((t.zone_distance ?? 0) - t.buffer_m)];
      if (Math.min(...distances) < 5) s.near5m++;
      if (t.inside) s.inside++;
      if (inBuffer) s.inBuffer++;
      const got = index.locate(lat, lon);
      const mine = { inside: got.inside.includes(t.zone_id), inBuffer: got.inBuffer.includes(t.zone_id) };
      const strangers = [...got.inside, ...got.inBuffer].filter((id) => id !== t.zone_id);
      if (mine.inside !== t.inside || mine.inBuffer !== inBuffer || strangers.length > 0) {
        s.disagree++;
        if (examples.length < 10) examples.push(`${t.zone_id} (${lon}, ${lat}): postgis ${JSON.stringify({ inside: t.inside, inBuffer })} ours ${JSON.stringify(got)}`);
      }
      const exactShape = t.core_excess !== null && Math.abs(t.core_excess) >= TOLERANCE_M;
      if (exactShape && t.shape_covers !== t.inside) s.shapeDisagree++;
    }
    console.table(Object.fromEntries(stats));
    if (examples.length > 0) console.log(examples.join('\n'));

    const total = [...stats.values()].reduce(
      (acc, s) => ({ compared: acc.compared + s.compared, disagree: acc.disagree + s.disagree, shape: acc.shape + s.shapeDisagree, fn: acc.fn + s.sqlFnDisagree }),
      { compared: 0, disagree: 0, shape: 0, fn: 0 },
    );
    expect(total.compared).toBeGreaterThan(ZONES.length * POINTS_PER_ZONE * 0.8);
    expect(total.disagree, examples.join('\n')).toBe(0);
    expect(total.shape).toBe(0);
    expect(total.fn).toBe(0);
  });

  it('stores circles and corridors as shapes PostGIS finds valid (ST_IsValid)', async () => {
    const random = seeded(99);
    const shapes: { name: string; geojson: string }[] = [];
    for (let i = 0; i < 250; i++) {
      let p: Position = [12.4 + random() * 0.5, 55.5 + random() * 0.3];
      let geometry: ZoneGeometry;
      if (i % 5 === 0) geometry = { type: 'Circle', center: p, radius_meters: 5 + random() * 50_000 };
      else {
        const line: Position[] = [p];
        let heading = random() * 360;
        for (let k = 0, n = 1 + Math.floor(random() * 8); k < n; k++) {
          heading += (random() - 0.5) * 340; // sharp turns and hairpins included
          const [lat, lon] = spheroidDestination(p[1], p[0], heading, 20 + random() * 3_000);
          p = [lon, lat];
          line.push(p);
        }
        geometry = { type: 'Corridor', centerline: line, width_meters: 10 + random() * 2_000 };
      }
      shapes.push({ name: JSON.stringify(geometry), geojson: JSON.stringify(storedShapeOf(geometry)) });
    }
    const { rows } = await client.query<{ i: number; valid: boolean; reason: string }>(
      `SELECT t.i, ST_IsValid(g) AS valid, ST_IsValidReason(g) AS reason
       FROM unnest($1::text[]) WITH ORDINALITY AS t(geojson, i), ST_GeomFromGeoJSON(t.geojson) AS g`,
      [shapes.map((s) => s.geojson)],
    );
    const invalid = rows.filter((r) => !r.valid).map((r) => `${r.reason}: ${shapes[r.i - 1]?.name}`);
    expect(invalid).toEqual([]);
  });

  it('finds with the per-position query (gist prefilter) what the zone functions find on every zone', async () => {
    const random = seeded(7);
    for (const z of ZONES) {
      for (const [lon, lat] of pointsNear(z, 25, random)) {
        const located = (await client.query<{ id: string }>(LOCATE_POSITION_SQL, [lon, lat])).rows.map((r) => r.id);
        const all = (
          await client.query<{ id: string }>(
            `SELECT z.id FROM zones AS z, (SELECT ST_SetSRID(ST_MakePoint($1, $2), 4326)::geography AS g) AS p
             WHERE zone_covers(z, p.g) OR zone_buffer_holds(z, p.g)`,
            [lon, lat],
          )
        ).rows.map((r) => r.id);
        expect(located.sort()).toEqual(all.sort());
      }
    }
  });
});
