import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORK_BOUNDED_WAITING } from '../../../support/work-bounded.ts';
import { createLandCutter, LAND_LAYER, LAND_MAX_ZOOM, parseSiteLand, tileAddress, type LandCutter } from '../../../../api/console/land-tile-cutter.ts';
import type { Box } from '../../../../api/console/rect-clip.ts';
import { checkSiteLandFile } from '../../../../api/console/site-land.ts';
import { loadConfig } from '../../../../app/config.ts';
import { landAt, tileOf } from '../../../support/land-tile.ts';
import { landTile } from '../../../../api/console/land-tiles.ts';

describe('land tile addresses', () => {
  it('accepts whole numbers inside the pyramid', () => {
    expect(tileAddress('10', '547', '320')).toEqual({ z: 10, x: 547, y: 320 });
    expect(tileAddress('0', '0', '0')).toEqual({ z: 0, x: 0, y: 0 });
  });
  it('calls anything but whole numbers bad', () => {
    for (const [z, x, y] of [['a', '0', '0'], ['1', '-1', '0'], ['1', '0', '0.5'], ['', '0', '0'], ['1', '0', '123456789']]) expect(tileAddress(z!, x!, y!)).toBe('bad');
  });
  it('calls tiles outside the pyramid absent', () => {
    expect(tileAddress(String(LAND_MAX_ZOOM + 1), '0', '0')).toBe('absent');
    expect(tileAddress('2', '4', '0')).toBe('absent');
    expect(tileAddress('2', '0', '4')).toBe('absent');
  });
});

describe('land tiles', () => {
  // Indexing the whole Natural Earth land once and cutting two tiles: fixed work (the index reads a file).
  it('cuts a vector tile with the land layer where there is land, and none over open sea', WORK_BOUNDED_WAITING, async () => {
    const cutter = await createLandCutter();
    // Zealand (Copenhagen) at zoom 10, and the South Pacific west of Chile at zoom 5.
    const copenhagen = cutter.cut({ z: 10, x: 547, y: 320 });
    expect(copenhagen?.byteLength).toBeGreaterThan(50);
    // A vector tile's first field is a layer (field 3, wire type 2: 0x1a) named by its layer name.
    expect(copenhagen?.[0]).toBe(0x1a);
    expect(Buffer.from(copenhagen!).includes(LAND_LAYER)).toBe(true);
    expect(cutter.cut({ z: 5, x: 4, y: 20 })).toBeNull();
  });
  // The same index built in the worker thread, then three tiles asked of it: fixed work, waiting on the worker.
  it('serves tiles cut in the worker thread, and a tile asked for again from its cache', WORK_BOUNDED_WAITING, async () => {
    const first = await landTile({ z: 8, x: 136, y: 80 });
    expect(Buffer.from(first!).includes(LAND_LAYER)).toBe(true);
    expect(await landTile({ z: 8, x: 136, y: 80 })).toBe(first);
    expect(await landTile({ z: 5, x: 4, y: 20 })).toBeNull();
  });
});

describe('the site\'s land inside its box', () => {
  // A made-up site: land over the box with a harbour basin (a hole) where Natural Earth has solid land.
  const box: Box = [12.5, 55.6, 12.7, 55.75];
  const ring = (w: number, s: number, e: number, n: number): [number, number][] => [[w, s], [e, s], [e, n], [w, n], [w, s]];
  const site = { type: 'Feature', bbox: box, properties: {}, geometry: { type: 'MultiPolygon', coordinates: [[ring(12.5, 55.6, 12.62, 55.75), ring(12.58, 55.67, 12.61, 55.69)]] } };
  const atZoom = (cutter: LandCutter, lon: number, lat: number, z: number) => {
    const t = tileOf(lon, lat, z);
    return landAt(cutter.cut(t), t.px, t.py);
  };
  let dir: string;
  let cutter: LandCutter;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pss-land-'));
    writeFileSync(join(dir, 'site.json'), JSON.stringify(site));
    // A site of open Pacific: the world as Natural Earth alone draws it.
    writeFileSync(join(dir, 'none.json'), JSON.stringify({ type: 'Feature', bbox: [-150, -10, -149, -9], properties: {}, geometry: { type: 'MultiPolygon', coordinates: [] } }));
    cutter = await createLandCutter(join(dir, 'site.json'));
  }, 20_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('draws the site\'s water as water where Natural Earth has land, and its land as land', async () => {
    const natural = await createLandCutter(join(dir, 'none.json'));
    // Natural Earth 1:10m draws Copenhagen's inner harbour (Inderhavnen) as land.
    expect(atZoom(natural, 12.5985, 55.6855, 14)).toBe(true);
    for (const z of [10, 12, 14]) {
      expect(atZoom(cutter, 12.595, 55.68, z), `basin at z${z}`).toBe(false);
      expect(atZoom(cutter, 12.55, 55.68, z), `land at z${z}`).toBe(true);
      // East of the site's land, inside its box: water, as the site says, not Natural Earth's Amager.
      expect(atZoom(cutter, 12.65, 55.63, z), `site water at z${z}`).toBe(false);
    }
    // Outside the box the world's land is still drawn: Aarhus and Malmö's hinterland.
    expect(atZoom(cutter, 10.15, 56.15, 10)).toBe(true);
    expect(atZoom(cutter, 13.2, 55.6, 10)).toBe(true);
  }, 20_000);

  it('refuses a file that is not a site land file, saying what one is', () => {
    expect(() => parseSiteLand(JSON.stringify({ type: 'Feature', geometry: site.geometry }), 'x.json')).toThrow(/x.json: not a site land file.*bbox/);
    expect(() => parseSiteLand(JSON.stringify({ ...site, bbox: [13, 55, 12, 56] }), 'x.json')).toThrow(/not a site land file/);
    // PSS_CONSOLE_LAND_FILE is checked when the settings are read: start-up stops naming the file.
    expect(checkSiteLandFile(join(dir, 'site.json'))).toBe(join(dir, 'site.json'));
    expect(() => checkSiteLandFile(join(dir, 'missing.json'))).toThrow(/cannot read .*missing\.json/);
    writeFileSync(join(dir, 'broken.json'), '{"type":');
    expect(() => checkSiteLandFile(join(dir, 'broken.json'))).toThrow(/broken\.json is not JSON/);
    expect(() => loadConfig({ PSS_CONSOLE_LAND_FILE: join(dir, 'missing.json') } as NodeJS.ProcessEnv)).toThrow(/PSS_CONSOLE_LAND_FILE/);
  });

  it('packages the Øresund: Inderhavnen off Amaliehaven and Nordhavn\'s basin are water, Kastellet and Holmen land', async () => {
    const packaged = await createLandCutter();
    expect(atZoom(packaged, 12.5985, 55.6855, 14)).toBe(false);
    expect(atZoom(packaged, 12.6, 55.689, 14)).toBe(false);
    expect(atZoom(packaged, 12.595, 55.691, 14)).toBe(true);
    expect(atZoom(packaged, 12.607, 55.683, 14)).toBe(true);
  }, 20_000);
});
