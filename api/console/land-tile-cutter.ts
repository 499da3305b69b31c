// Cuts the console's base map land into Mapbox vector tiles (docs/console.md "Land data"): inside the site's
// box the site's own detailed land (api/console/land/site-land.json, cut from OpenStreetMap land polygons by
// infra/cut-site-land.ts, or the file PSS_CONSOLE_LAND_FILE names), everywhere else Natural Earth 1:10m (npm
// world-atlas), which draws a harbour as solid land. Both are indexed once with geojson-vt (well under a
// second, a few MiB) and each tile is encoded with vt-pbf when asked for. Runs in a worker thread
// (land-tile-worker.ts), so neither the index nor a deep tile's cut holds the API's event loop. Nothing is
// fetched from the internet.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { GeoJSONVT } from '@maplibre/geojson-vt';
import { fromGeojsonVt } from '@maplibre/vt-pbf';
import { feature } from 'topojson-client';
import type { Topology } from 'topojson-specification';
import { clipToBox, outsideBox, polygonsOf, type Ring } from './rect-clip.ts';
import { parseSiteLand, type SiteLand } from './site-land.ts';

export { parseSiteLand } from './site-land.ts';

/** Deepest zoom cut, where a tile is about 2.4 km across and geojson-vt keeps the land to about a metre; the map over-zooms beyond. */
export const LAND_MAX_ZOOM = 14;
/** The vector tile layer the console's style reads (`source-layer`). */
export const LAND_LAYER = 'land';
/** The packaged site land: the Øresund about Copenhagen. */
export const PACKAGED_SITE_LAND = new URL('./land/site-land.json', import.meta.url);

export type TileAddress = { z: number; x: number; y: number };

/**
 * Checks tile coordinates from a URL: 'bad' when they are not whole numbers (a 400), 'absent' when they name
 * no tile of the pyramid, deeper than LAND_MAX_ZOOM or outside 0..2^z-1 (a 404). Pure.
 */
export function tileAddress(z: string, x: string, y: string): TileAddress | 'bad' | 'absent' {
  if (![z, x, y].every((v) => /^\d{1,8}$/.test(v))) return 'bad';
  const address = { z: Number(z), x: Number(x), y: Number(y) };
  if (address.z > LAND_MAX_ZOOM) return 'absent';
  const side = 2 ** address.z;
  return address.x < side && address.y < side ? address : 'absent';
}

/** The world's land as one collection: the site's inside its box, Natural Earth's outside it. Pure. */
export function composeLand(world: Ring[][], site: SiteLand): GeoJSON.FeatureCollection {
  const outside = outsideBox(site.box).flatMap((strip) => clipToBox(world, strip));
  const multi = (polygons: Ring[][], source: string): GeoJSON.Feature => ({ type: 'Feature', properties: { source }, geometry: { type: 'MultiPolygon', coordinates: polygons } });
  return { type: 'FeatureCollection', features: [multi(outside, 'natural-earth'), multi(site.polygons, 'site')] };
}

export interface LandCutter {
  /** The encoded tile (uncompressed MVT), or null where the tile holds no land (open sea). */
  cut(address: TileAddress): Uint8Array | null;
}

export async function createLandCutter(siteLandFile: string | URL = PACKAGED_SITE_LAND): Promise<LandCutter> {
  const path = createRequire(import.meta.url).resolve('world-atlas/land-10m.json');
  const topology = JSON.parse(await readFile(path, 'utf8')) as Topology;
  const world = feature(topology, topology.objects.land as never) as unknown as GeoJSON.FeatureCollection;
  const site = parseSiteLand(await readFile(siteLandFile, 'utf8'), String(siteLandFile));
  const land = composeLand(polygonsOf(world.features.map((f) => f.geometry)), site);
  const index = new GeoJSONVT(land, { maxZoom: LAND_MAX_ZOOM, indexMaxZoom: 4, tolerance: 3, buffer: 64 });
  return {
    cut({ z, x, y }) {
      const tile = index.getTile(z, x, y);
      return tile && tile.features.length > 0 ? fromGeojsonVt({ [LAND_LAYER]: tile }, { version: 2, extent: 4096 }) : null;
    },
  };
}
