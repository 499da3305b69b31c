// The console's base map land (docs/console.md "Map") as Mapbox vector tiles, cut on demand from the packaged
// Natural Earth 1:10m land (npm world-atlas): the page fetches only the few tiles in view instead of decoding
// and tiling the whole 4 MB set in the browser, which held its first view back by seconds. The tile index
// (geojson-vt) is built once per process, about 0.4 s and a few MiB, on the first request or on warm();
// encoded tiles are kept in a small LRU cache. Nothing is fetched from the internet.
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
const CACHED_TILES = 2_000;

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

let index: Promise<GeoJSONVT> | undefined;
const cache = new Map<string, Uint8Array | null>();

async function buildIndex(): Promise<GeoJSONVT> {
  const path = createRequire(import.meta.url).resolve('world-atlas/land-10m.json');
  const topology = JSON.parse(await readFile(path, 'utf8')) as Topology;
  const land = feature(topology, topology.objects.land as never) as unknown as GeoJSON.FeatureCollection;
  return new GeoJSONVT(land, { maxZoom: LAND_MAX_ZOOM, indexMaxZoom: 4, tolerance: 3, buffer: 64 });
}

/** Starts building the index, so the page's first tiles do not wait for it. */
export function warmLandTiles(): void {
  index ??= buildIndex();
  // A failure shows on the tile requests that await it; here it is only a head start.
  index.catch(() => undefined);
}

/** The encoded tile (uncompressed MVT), or null where the tile holds no land (open sea). */
export async function landTile({ z, x, y }: TileAddress): Promise<Uint8Array | null> {
  const key = `${z}/${x}/${y}`;
  if (cache.has(key)) {
    const hit = cache.get(key) as Uint8Array | null;
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const tile = (await (index ??= buildIndex())).getTile(z, x, y);
  const encoded = tile && tile.features.length > 0 ? fromGeojsonVt({ [LAND_LAYER]: tile }, { version: 2, extent: 4096 }) : null;
  cache.set(key, encoded);
  if (cache.size > CACHED_TILES) cache.delete(cache.keys().next().value as string);
  return encoded;
}
