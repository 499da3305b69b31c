// Cuts the console's land for the site's box (docs/console.md "Land data") out of a GeoJSON of land
// polygons, by default geo-maps' OpenStreetMap-derived land (npm @geo-maps/earth-lands-1m, 147 MB of GeoJSON:
// too big to install with the service, so it is fetched with `npm pack` into a scratch folder only when a
// site is cut; coarser than its name says, see docs/console.md), and writes
// api/console/land/site-land.json (or OUT, for PSS_CONSOLE_LAND_FILE), which the api role's land tiles draw
// inside the box instead of Natural Earth. Any GeoJSON of land polygons will do as the source, such as
// OpenStreetMap's full-detail land polygons converted with ogr2ogr (docs/console.md "Land data"):
//   node --import tsx infra/cut-site-land.ts west,south,east,north [source.geojson [OUT]]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clipToBox, polygonsOf, type Box } from '../api/console/rect-clip.ts';

const PACKAGE = '@geo-maps/earth-lands-1m@0.6.0';
const OUT = process.argv[4] ? new URL(process.argv[4], `file://${process.cwd()}/`) : new URL('../api/console/land/site-land.json', import.meta.url);

const box = (process.argv[2] ?? '').split(',').map(Number) as Box;
if (box.length !== 4 || box.some((v) => !Number.isFinite(v)) || box[0] >= box[2] || box[1] >= box[3]) {
  console.error('usage: node --import tsx infra/cut-site-land.ts west,south,east,north [source.geojson [out.json]]');
  process.exit(64);
}

let scratch: string | undefined;
let source = process.argv[3];
const sourceName = source ? source.split('/').pop() : `${PACKAGE} (OpenStreetMap land polygons as simplified by geo-maps)`;
if (!source) {
  scratch = mkdtempSync(join(tmpdir(), 'pss-land-'));
  const tarball = execFileSync('npm', ['pack', PACKAGE, '--silent'], { cwd: scratch, encoding: 'utf8' }).trim().split('\n').pop() as string;
  execFileSync('tar', ['xzf', tarball, 'package/map.geo.json'], { cwd: scratch });
  source = join(scratch, 'package', 'map.geo.json');
}
try {
  const world = JSON.parse(readFileSync(source, 'utf8')) as GeoJSON.GeometryCollection | GeoJSON.FeatureCollection;
  const geometries = world.type === 'FeatureCollection' ? world.features.map((f) => f.geometry) : world.geometries;
  // 5 decimals is about a metre: the data's own precision.
  const round = (v: number) => Math.round(v * 1e5) / 1e5;
  // Outer rings only: land polygons traced from the coastline have no holes, and geo-maps' are inland lakes,
  // simplified to hundreds of small triangles over the land, which a port's map does not need.
  const polygons = clipToBox(polygonsOf(geometries).map((p) => p.slice(0, 1)), box).map((p) => p.map((ring) => ring.map(([x, y]) => [round(x), round(y)])));
  const site = {
    type: 'Feature',
    bbox: box,
    properties: {
      source: sourceName,
      licence: 'ODbL 1.0: © OpenStreetMap contributors (https://www.openstreetmap.org/copyright)',
      cut_by: 'infra/cut-site-land.ts',
    },
    geometry: { type: 'MultiPolygon', coordinates: polygons },
  };
  writeFileSync(OUT, `${JSON.stringify(site)}\n`);
  const points = polygons.reduce((n, p) => n + p.reduce((m, r) => m + r.length, 0), 0);
  console.log(`${OUT.pathname}: ${polygons.length} polygons, ${points} points, ${readFileSync(OUT).length} bytes`);
} finally {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
}
