import { describe, expect, it } from 'vitest';
import { simplifyTrack } from '../../../../processors/vessels/simplify-track.ts';

// 0.001 degree of latitude is 111 m.
const north = (lat: number, lon = 12.8) => ({ lat: 55.6 + lat, lon });

describe('simplifyTrack', () => {
  it('keeps every point with no tolerance or fewer than three points', () => {
    const points = [north(0), north(0.001), north(0.002)];
    expect(simplifyTrack(points, 0)).toEqual([0, 1, 2]);
    expect(simplifyTrack(points.slice(0, 2), 50)).toEqual([0, 1]);
  });

  it('drops points on a straight leg and keeps the corner', () => {
    // North 4 points, then east: the corner (index 3) is ~300 m off the first-to-last line.
    const points = [north(0), north(0.001), north(0.002), north(0.003), north(0.003, 12.803), north(0.003, 12.806)];
    expect(simplifyTrack(points, 10)).toEqual([0, 3, 5]);
  });

  it('keeps a deviation larger than the tolerance and drops a smaller one', () => {
    // Middle point 0.0003 degrees of longitude (about 19 m at 55.6 N) off a north-going line.
    const points = [north(0), north(0.001, 12.8003), north(0.002)];
    expect(simplifyTrack(points, 25)).toEqual([0, 2]);
    expect(simplifyTrack(points, 15)).toEqual([0, 1, 2]);
  });

  it('measures across the antimeridian the short way', () => {
    const points = [{ lat: 0, lon: 179.999 }, { lat: 0, lon: -179.9995 }, { lat: 0, lon: -179.999 }];
    expect(simplifyTrack(points, 5)).toEqual([0, 2]);
  });
});
