// Cuts the console's base map land into Mapbox vector tiles (docs/console.md "Map"): the packaged Natural
// Earth 1:10m land (npm world-atlas) indexed once with geojson-vt (about 0.4 s and a few MiB), each tile
// encoded with vt-pbf when asked for. Runs in a worker thread (land-tile-worker.ts), so neither the index nor
// a deep tile's cut holds the API's event loop. Nothing is fetched from the internet.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { GeoJSONVT } from '@maplibre/geojson-vt';
import { fromGeojsonVt } from '@maplibre/vt-pbf';
import { feature } from 'topojson-client';
import type { Topology } from 'topojson-specification';

/** Deepest zoom cut; the map over-zooms beyond it (1:10m land holds no more detail than this). */
export const LAND_MAX_ZOOM = 10;
/** The vector tile layer the console's style reads (`source-layer`). */
export const LAND_LAYER = 'land';

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

export interface LandCutter {
  /** The encoded tile (uncompressed MVT), or null where the tile holds no land (open sea). */
  cut(address: TileAddress): Uint8Array | null;
}

export async function createLandCutter(): Promise<LandCutter> {
  const path = createRequire(import.meta.url).resolve('world-atlas/land-10m.json');
  const topology = JSON.parse(await readFile(path, 'utf8')) as Topology;
  const land = feature(topology, topology.objects.land as never) as unknown as GeoJSON.FeatureCollection;
  const index = new GeoJSONVT(land, { maxZoom: LAND_MAX_ZOOM, indexMaxZoom: 4, tolerance: 3, buffer: 64 });
  return {
    cut({ z, x, y }) {
      const tile = index.getTile(z, x, y);
      return tile && tile.features.length > 0 ? fromGeojsonVt({ [LAND_LAYER]: tile }, { version: 2, extent: 4096 }) : null;
    },
  };
}
