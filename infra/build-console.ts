// Builds the operator console (console/src, TypeScript for the browser) into console/dist/, which the api
// role serves at /console: one ES module bundle with MapLibre in it, MapLibre's worker and stylesheet beside
// it, and the vessel script for that worker (the land comes as tiles from the api role, api/console/land-tiles.ts).
// Nothing is fetched from the internet at run time.
// Run by infra/console.sh (npm start and npm test do).
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = `${root}console/dist/`;

await rm(dist, { recursive: true, force: true });
await mkdir(dist, { recursive: true });
const result = await build({
  entryPoints: [`${root}console/src/main.ts`],
  bundle: true,
  format: 'esm',
  target: 'es2022',
  minify: true,
  sourcemap: false,
  outfile: `${dist}app.js`,
  logLevel: 'warning',
  metafile: true,
});
// Loaded into MapLibre's worker by the page (console/src/vessel-worker.ts): builds the vessels' GeoJSON there.
const worker = await build({
  entryPoints: [`${root}console/src/vessel-worker.ts`],
  bundle: true,
  format: 'esm',
  target: 'es2022',
  minify: true,
  outfile: `${dist}vessel-worker.mjs`,
  logLevel: 'warning',
  metafile: true,
});
const maplibre = `${root}node_modules/maplibre-gl/dist/`;
await Promise.all([
  copyFile(`${root}console/index.html`, `${dist}index.html`),
  copyFile(`${root}console/console.css`, `${dist}console.css`),
  copyFile(`${maplibre}maplibre-gl.css`, `${dist}maplibre-gl.css`),
  copyFile(`${maplibre}maplibre-gl-worker.mjs`, `${dist}maplibre-gl-worker.mjs`),
]);
const bytes = [...Object.values(result.metafile.outputs), ...Object.values(worker.metafile.outputs)].reduce((sum, o) => sum + o.bytes, 0);
console.log(`build-console: console/dist/ built (${Math.round(bytes / 1024)} KiB)`);
