import { describe, expect, it } from 'vitest';
import { WORK_BOUNDED_WAITING } from '../../../support/work-bounded.ts';
import { createLandCutter, LAND_LAYER, LAND_MAX_ZOOM, tileAddress } from '../../../../api/console/land-tile-cutter.ts';
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
