// The site's land file (docs/console.md "Land data"): a GeoJSON Feature whose `bbox` is the box it covers and
// whose geometry is the land in it, written by infra/cut-site-land.ts. Read by the land tile worker, and
// checked when the settings are read (PSS_CONSOLE_LAND_FILE), so a wrong file stops start-up with its name
// rather than failing every tile. Pure but for reading the file.
import { readFileSync } from 'node:fs';
import { polygonsOf, type Box, type Ring } from './rect-clip.ts';

export interface SiteLand {
  box: Box;
  polygons: Ring[][];
}

/** Reads a site land file's text, refusing one without a box or land (a wrong file must not blank the harbour silently). */
export function parseSiteLand(text: string, name: string): SiteLand {
  const site = JSON.parse(text) as { type?: string; bbox?: number[]; geometry?: GeoJSON.Geometry };
  const box = site.bbox;
  if (site.type !== 'Feature' || !Array.isArray(box) || box.length !== 4 || !box.every(Number.isFinite) || (box[0] as number) >= (box[2] as number) || (box[1] as number) >= (box[3] as number) || !site.geometry) {
    throw new Error(`${name}: not a site land file (a GeoJSON Feature with bbox [west, south, east, north] and a Polygon or MultiPolygon; infra/cut-site-land.ts writes one)`);
  }
  return { box: box as Box, polygons: polygonsOf([site.geometry]) };
}

/** Checks the file a setting names: its path, or an error saying what is wrong with it. */
export function checkSiteLandFile(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${path}: ${(err as Error).message}`);
  }
  try {
    parseSiteLand(text, path);
  } catch (err) {
    throw new Error(err instanceof SyntaxError ? `${path} is not JSON: ${err.message}` : (err as Error).message);
  }
  return path;
}
