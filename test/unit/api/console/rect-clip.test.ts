import { describe, expect, it } from 'vitest';
import { clipPolygon, clipRing, clipToBox, outsideBox, pointInPolygon, type Box, type Ring } from '../../../../api/console/rect-clip.ts';

const square = (w: number, s: number, e: number, n: number): Ring => [[w, s], [e, s], [e, n], [w, n], [w, s]];
const area = (ring: Ring) => Math.abs(ring.reduce((a, [x, y], i) => { const [x2, y2] = ring[(i + 1) % ring.length] as [number, number]; return a + x * y2 - x2 * y; }, 0)) / 2;

describe('clipping land to a box', () => {
  it('keeps the part of a ring inside the box, closed', () => {
    const clipped = clipRing(square(0, 0, 10, 10), [5, 5, 20, 20]);
    expect(area(clipped)).toBeCloseTo(25);
    expect(clipped[0]).toEqual(clipped[clipped.length - 1]);
  });
  it('drops a ring wholly outside, and keeps one wholly inside as it is', () => {
    expect(clipRing(square(0, 0, 1, 1), [5, 5, 6, 6])).toEqual([]);
    expect(clipPolygon([square(0, 0, 1, 1)], [-5, -5, 5, 5])).toEqual([square(0, 0, 1, 1)]);
  });
  it('clips holes with their polygon, and a concave ring leaving and re-entering the box to the right area', () => {
    const u: Ring = [[0, 0], [10, 0], [10, 10], [7, 10], [7, 3], [3, 3], [3, 10], [0, 10], [0, 0]];
    const [outer] = clipPolygon([u], [0, 5, 10, 10]) as Ring[];
    // Two legs of 3 x 5 each; the zero-width edge between them along y = 5 adds nothing.
    expect(area(outer as Ring)).toBeCloseTo(30);
    const withHole = clipPolygon([square(0, 0, 10, 10), square(4, 4, 6, 6)], [0, 0, 5, 10]) as Ring[];
    expect(withHole).toHaveLength(2);
    expect(area(withHole[1] as Ring)).toBeCloseTo(2);
  });
  it('splits the world outside a box into strips that cover everything but the box, without overlap', () => {
    const box: Box = [12, 55, 13, 56];
    const strips = outsideBox(box);
    const inStrips = (p: [number, number]) => strips.filter(([w, s, e, n]) => p[0] > w && p[0] < e && p[1] > s && p[1] < n).length;
    expect(inStrips([12.5, 55.5])).toBe(0);
    for (const p of [[0, 0], [12.5, 50], [12.5, 60], [20, 55.5], [-100, 55.5]] as [number, number][]) expect(inStrips(p), String(p)).toBe(1);
    // A polygon across the box's edge loses what is inside the box, and nothing else.
    const pieces = strips.flatMap((s) => clipToBox([[square(11, 54, 14, 57)]], s));
    expect(pieces.reduce((a, p) => a + area(p[0] as Ring), 0)).toBeCloseTo(9 - 1);
    expect(pieces.some((p) => pointInPolygon([12.5, 55.5], p))).toBe(false);
  });
});
