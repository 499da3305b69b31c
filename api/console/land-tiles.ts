// The console's land tiles as the API serves them (/console/land/{z}/{x}/{y}.pbf, docs/console.md "Land data"):
// cut in a worker thread (land-tile-cutter.ts), started on the first request or by warmLandTiles(), so the
// API's event loop never waits for the index or a cut; the encoded tiles the page asked for are kept in a
// small LRU cache. One worker per site land file and process (one file in a deployment; tests may run
// services with different files in one process), shared by every service in it, and unref'd: it never holds
// the process open.
import { Worker } from 'node:worker_threads';
import type { TileAddress } from './land-tile-cutter.ts';

const CACHED_TILES = 2_000;
const ENTRY = new URL('./land-tile-worker.mjs', import.meta.url);

type Reply = { id: number; tile?: Uint8Array | null; error?: string };
type Waiting = { resolve: (tile: Uint8Array | null) => void; reject: (err: Error) => void };

/** A site land file's path ('' for the packaged one). */
const workers = new Map<string, { thread: Worker; waiting: Map<number, Waiting> }>();
let nextId = 0;
const cache = new Map<string, Uint8Array | null>();

function cutter(siteLandFile: string): { thread: Worker; waiting: Map<number, Waiting> } {
  const running = workers.get(siteLandFile);
  if (running) return running;
  const thread = new Worker(ENTRY, { name: 'land-tiles', workerData: { siteLandFile } });
  thread.unref();
  const waiting = new Map<number, Waiting>();
  thread.on('message', ({ id, tile, error }: Reply) => {
    const w = waiting.get(id);
    waiting.delete(id);
    if (error !== undefined) w?.reject(new Error(`land tile: ${error}`));
    else w?.resolve(tile ?? null);
  });
  // A worker that died fails what it owed; the next request starts another.
  const fail = (err: Error) => {
    if (workers.get(siteLandFile)?.thread === thread) workers.delete(siteLandFile);
    for (const w of waiting.values()) w.reject(err);
    waiting.clear();
  };
  thread.on('error', fail);
  thread.on('exit', (code) => fail(new Error(`land tile worker exited with code ${code}`)));
  const entry = { thread, waiting };
  workers.set(siteLandFile, entry);
  return entry;
}

/** Starts the worker, which builds its index at once, so the page's first tiles do not wait for it. */
export function warmLandTiles(siteLandFile = ''): void {
  cutter(siteLandFile);
}

/** The encoded tile (uncompressed MVT), or null where the tile holds no land (open sea). */
export async function landTile({ z, x, y }: TileAddress, siteLandFile = ''): Promise<Uint8Array | null> {
  const key = `${siteLandFile}|${z}/${x}/${y}`;
  if (cache.has(key)) {
    const hit = cache.get(key) as Uint8Array | null;
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const { thread, waiting } = cutter(siteLandFile);
  const id = nextId++;
  const tile = await new Promise<Uint8Array | null>((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    thread.postMessage({ id, z, x, y });
  });
  cache.set(key, tile);
  if (cache.size > CACHED_TILES) cache.delete(cache.keys().next().value as string);
  return tile;
}
