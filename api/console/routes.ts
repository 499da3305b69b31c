// GET /console: the operator console's files, built by infra/console.sh into console/dist/ (docs/console.md),
// and /console/config.json, what the page needs to know of this deployment. Same origin as the API, so
// the console needs no CORS; its CSP allows only this origin (MapLibre's worker runs from a blob: URL).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import express, { Router } from 'express';
import type { ServiceContext } from '../../platform/context.ts';
import { AppError } from '../../platform/errors.ts';
import { consoleClientId, consoleRedirectUri } from './console-client.ts';
import { LAND_MAX_ZOOM, tileAddress } from './land-tile-cutter.ts';
import { landTile, warmLandTiles } from './land-tiles.ts';

export const CONSOLE_DIST = fileURLToPath(new URL('../../console/dist/', import.meta.url));

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "worker-src 'self' blob:",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self' ws: wss:",
  "media-src 'self' data:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export function consoleRouter(ctx: ServiceContext): Router {
  const router = Router();
  const { config } = ctx;
  const tileOrigin = config.consoleTileUrl ? new URL(config.consoleTileUrl.replace(/[{}]/g, '')).origin : '';
  const csp = tileOrigin ? CSP.replace("img-src 'self'", `img-src 'self' ${tileOrigin}`).replace("connect-src 'self'", `connect-src 'self' ${tileOrigin}`) : CSP;
  router.use('/console', (_req, res, next) => {
    res.setHeader('Content-Security-Policy', csp);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    next();
  });
  router.get('/console/config.json', (_req, res) => {
    // The page asks for this first: the land tile worker builds its index while the page starts the map.
    warmLandTiles(config.consoleLandFile);
    res.setHeader('Cache-Control', 'no-store');
    res.json({
      client_id: consoleClientId(config),
      redirect_uri: consoleRedirectUri(config),
      auth_url: config.authUrl.replace(/\/$/, ''),
      api_url: config.publicUrl.replace(/\/$/, ''),
      timezone: config.consoleTimezone,
      tile_url: config.consoleTileUrl || null,
    });
  });
  router.get('/console/land/:z/:x/:y.pbf', async (req, res) => {
    const address = tileAddress(req.params.z, req.params.x, req.params.y);
    if (address === 'bad') throw new AppError('bad_request', 'Tile coordinates must be whole numbers: /console/land/{z}/{x}/{y}.pbf');
    if (address === 'absent') throw new AppError('not_found', `No such land tile: z is 0-${LAND_MAX_ZOOM}, x and y 0 to 2^z - 1`);
    const tile = await landTile(address, config.consoleLandFile);
    // The land changes only with the package or the site's file: a day in any cache.
    res.setHeader('Cache-Control', 'public, max-age=86400');
    if (!tile) return void res.status(204).end();
    res.type('application/x-protobuf').send(Buffer.from(tile.buffer, tile.byteOffset, tile.byteLength));
  });
  if (!existsSync(CONSOLE_DIST)) {
    router.get(['/console', '/console/*path'], (_req, res) => {
      res.status(503).type('text/plain').send('The console is not built on this instance: run `bash infra/console.sh` (npm start and npm test do).\n');
    });
    return router;
  }
  // Relative URLs of the page (app.js, the worker) resolve under /console/ only with the slash.
  router.get('/console', (req, res, next) => (req.originalUrl.split('?')[0] === '/console' ? res.redirect(301, '/console/') : next()));
  router.use('/console', express.static(CONSOLE_DIST, { index: 'index.html', fallthrough: false, maxAge: 0 }));
  return router;
}
