import { describe, expect, it } from 'vitest';
import { targetPoint as flownTo } from '../../../drones/geo.ts';
import { targetPoint } from '../../../console/src/mission-format.ts';

describe("the console's mission target point", () => {
  it('is where the drone flies first: a polygon ring without its closing vertex, as drones/geo.ts has it', () => {
    const square = { type: 'Polygon' as const, coordinates: [[[12, 55], [12.2, 55], [12.2, 55.2], [12, 55.2], [12, 55]]] };
    const server = flownTo(square as never);
    expect(targetPoint(square as never)).toEqual([server.lon, server.lat]);
    expect(targetPoint(square as never)?.map((c) => Number(c.toFixed(9)))).toEqual([12.1, 55.1]);
  });

  it('is the point itself for a point', () => {
    expect(targetPoint({ type: 'Point', coordinates: [12.5, 55.5] } as never)).toEqual([12.5, 55.5]);
  });
});
