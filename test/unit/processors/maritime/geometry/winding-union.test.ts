import { describe, expect, it } from 'vitest';
import { positiveRegion } from '../../../../../processors/maritime/geometry/winding-union.ts';

type P = [number, number];
const area = (ring: P[]): number => ring.slice(0, -1).reduce((a, p, i) => a + p[0] * (ring[i + 1] as P)[1] - (ring[i + 1] as P)[0] * p[1], 0) / 2;

describe('positiveRegion', () => {
  it('keeps a counter-clockwise square as it is', () => {
    const { polygons } = positiveRegion([[0, 0], [1, 0], [1, 1], [0, 1]]);
    expect(polygons).toHaveLength(1);
    expect(area(polygons[0]![0]!)).toBeCloseTo(1);
  });

  it('drops what is wound clockwise', () => {
    expect(positiveRegion([[0, 0], [0, 1], [1, 1], [1, 0]]).polygons).toEqual([]);
  });

  it('keeps only the counter-clockwise lobe of a figure eight', () => {
    const { polygons } = positiveRegion([[0, 0], [1, 0], [0, 1], [1, 1]]);
    expect(polygons).toHaveLength(1);
    expect(area(polygons[0]![0]!)).toBeCloseTo(0.25);
  });

  it('turns a pentagram into its outline: the centre, wound twice, is kept once', () => {
    const star: P[] = [0, 1, 2, 3, 4].map((k) => {
      const a = ((90 + 144 * k) * Math.PI) / 180;
      return [Math.cos(a), Math.sin(a)];
    });
    const { polygons } = positiveRegion(star);
    expect(polygons).toHaveLength(1);
    expect(polygons[0]).toHaveLength(1);
    expect(polygons[0]![0]).toHaveLength(11);
    expect(area(polygons[0]![0]!)).toBeCloseTo(5 * 0.381966 * Math.sin(Math.PI / 5), 4);
  });

  it('leaves a hole inside a loop that overlaps itself', () => {
    // A thick ring drawn as outer square forward, inner square backward, joined by a slit.
    const { polygons } = positiveRegion([[0, 0], [4, 0], [4, 4], [0, 4], [0, 0.001], [1, 0.001], [1, 3], [3, 3], [3, 1], [1, 1], [1, 0.0005], [0, 0.0005]]);
    expect(polygons).toHaveLength(1);
    const rings = polygons[0]!;
    expect(rings.length).toBeGreaterThanOrEqual(1);
  });
});
