import { cellToParent, getResolution, latLngToCell } from 'h3-js';
import { describe, expect, it } from 'vitest';
import { WORK_BOUNDED } from '../../../../support/work-bounded.ts';
import type { ZoneGeometry } from '../../../../../schemas/zone.ts';
import { compileZoneShape, INSIDE, IN_BUFFER, OUTSIDE } from '../../../../../processors/maritime/geometry/zone-shape.ts';
import { latLonOf } from '../../../../../processors/maritime/geometry/sphere.ts';
import { coverZone, ZONE_CELL_RESOLUTION, type CellKind } from '../../../../../processors/maritime/zones/h3-cover.ts';

function seeded(seed: number): () => number {
  let s = seed;
  return () => ((s = (s * 16807) % 2147483647) - 1) / 2147483646;
}

const CASES: [string, ZoneGeometry, number][] = [
  ['polygon', { type: 'Polygon', coordinates: [[[12.575, 55.68], [12.61, 55.678], [12.625, 55.69], [12.6, 55.695], [12.58, 55.71], [12.575, 55.68]]] }, 250],
  ['circle', { type: 'Circle', center: [12.7, 55.62], radius_meters: 900 }, 300],
  ['large circle', { type: 'Circle', center: [11, 57], radius_meters: 30_000 }, 2_000],
  ['corridor', { type: 'Corridor', centerline: [[12.45, 55.55], [12.5, 55.58], [12.47, 55.6]], width_meters: 400 }, 0],
  ['antimeridian polygon', { type: 'Polygon', coordinates: [[[179.8, -16.9], [-179.85, -16.95], [-179.8, -16.7], [179.9, -16.6], [179.8, -16.9]]] }, 500],
];

describe('coverZone', () => {
  it.each(CASES)('covers a %s and its buffer completely, and its kinds never lie', WORK_BOUNDED, (_name, geometry, buffer) => {
    const shape = compileZoneShape(geometry);
    const cells = coverZone(shape, buffer);
    const kindOf = new Map<string, CellKind>(cells.map((c) => [c.cell, c.kind]));
    const resolutions = [...new Set(cells.map((c) => getResolution(c.cell)))];
    const lookup = (lat: number, lon: number): CellKind | undefined => {
      const fine = latLngToCell(lat, lon, ZONE_CELL_RESOLUTION);
      for (const res of resolutions) {
        const kind = kindOf.get(res === ZONE_CELL_RESOLUTION ? fine : cellToParent(fine, res));
        if (kind) return kind;
      }
      return undefined;
    };
    const [clat, clon] = latLonOf(shape.centre);
    const span = ((shape.angularRadius + buffer / 6.37e6) * 1.3 * 180) / Math.PI;
    const random = seeded(17);
    const seen = { inside: 0, buffer: 0, outside: 0 };
    for (let i = 0; i < 20_000; i++) {
      const lat = clat + (random() * 2 - 1) * span;
      const lon = ((clon + ((random() * 2 - 1) * span) / Math.cos((clat * Math.PI) / 180) + 540) % 360) - 180;
      const placement = shape.place(lat, lon, buffer);
      const kind = lookup(lat, lon);
      if (placement !== OUTSIDE) expect(kind, `(${lon}, ${lat}) is in the zone or its buffer`).toBeDefined();
      if (kind === 'inside') expect(placement).toBe(INSIDE);
      if (kind === 'buffer') expect(placement).toBe(IN_BUFFER);
      seen[placement === INSIDE ? 'inside' : placement === IN_BUFFER ? 'buffer' : 'outside']++;
    }
    expect(seen.inside).toBeGreaterThan(100);
  });

  it('compacts the interior of a large zone into coarser cells', WORK_BOUNDED, () => {
    const cells = coverZone(compileZoneShape({ type: 'Circle', center: [11, 57], radius_meters: 30_000 }), 0);
    const coarse = cells.filter((c) => getResolution(c.cell) < ZONE_CELL_RESOLUTION);
    expect(coarse.length).toBeGreaterThan(0);
    expect(coarse.every((c) => c.kind === 'inside')).toBe(true);
    expect(cells.length).toBeLessThan(30_000);
  });
});
