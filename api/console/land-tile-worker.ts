// The land tile worker thread: builds the cutter once (the site land file in workerData, else the packaged
// one), then answers {id, z, x, y} with {id, tile} (the tile's bytes transferred, null for open sea) or
// {id, error}. Started by api/console/land-tiles.ts.
import { parentPort, workerData } from 'node:worker_threads';
import { createLandCutter, type TileAddress } from './land-tile-cutter.ts';

const port = parentPort;
if (!port) throw new Error('land-tile-worker.ts runs only as a worker thread');
const siteLandFile = (workerData as { siteLandFile?: string } | undefined)?.siteLandFile;
const cutter = createLandCutter(siteLandFile || undefined);
port.on('message', (request: TileAddress & { id: number }) => {
  cutter.then(
    (c) => {
      const tile = c.cut(request);
      port.postMessage({ id: request.id, tile }, tile ? [tile.buffer as ArrayBuffer] : []);
    },
    (err: unknown) => port.postMessage({ id: request.id, error: String((err as Error)?.message ?? err) }),
  );
});
