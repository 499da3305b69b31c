import { describe, expect, it } from 'vitest';
import { metresPerPixelAtZoom0 } from '../../../console/src/geometry.ts';
import { bufferFeatures, outwardRing } from '../../../console/src/zone-buffer.ts';

const square: [number, number][] = [[12.55, 55.66], [12.57, 55.66], [12.57, 55.67], [12.55, 55.67], [12.55, 55.66]];
const zone = (geometry: object, buffer?: object) => ({ id: 'z1', alert_level: 'high', geometry, buffer } as Parameters<typeof bufferFeatures>[0]);

describe('zone buffers on the map', () => {
  it('turns exterior rings counter-clockwise and holes clockwise, so the outside is on the right', () => {
    const clockwise = [...square].reverse();
    expect(outwardRing(clockwise, false)).toEqual(square);
    expect(outwardRing(square, false)).toBe(square);
    expect(outwardRing(square, true)).toEqual(clockwise);
  });

  it('draws a polygon\'s buffer as a band from the edge out to the distance and a dashed edge at it', () => {
    const [band, edge] = bufferFeatures(zone({ type: 'Polygon', coordinates: [[...square].reverse()] }, { distance_meters: 150 }));
    const d = 150 / metresPerPixelAtZoom0(55.66);
    expect(band?.properties).toMatchObject({ kind: 'band', alert_level: 'high' });
    expect(band?.properties?.width_px0).toBeCloseTo(d, 9);
    expect(band?.properties?.offset_px0).toBeCloseTo(d / 2, 9);
    expect(edge?.properties?.offset_px0).toBeCloseTo(d, 9);
    expect((edge?.geometry as GeoJSON.MultiLineString).coordinates[0]).toEqual(square);
  });

  it('draws a corridor\'s buffer on both sides of its width', () => {
    const features = bufferFeatures(zone({ type: 'Corridor', centerline: [[12.5, 55.6], [12.6, 55.6]], width_meters: 300 }, { distance_meters: 100 }));
    const reach = 250 / metresPerPixelAtZoom0(55.6);
    expect(features.map((f) => f.properties?.kind)).toEqual(['band', 'edge', 'edge']);
    expect(features[0]?.properties?.width_px0).toBeCloseTo(2 * reach, 9);
    expect(features.slice(1).map((f) => Math.sign(f.properties?.offset_px0))).toEqual([1, -1]);
  });

  it('draws a circle\'s buffer around its ring, and nothing without a buffer or with it disabled', () => {
    expect(bufferFeatures(zone({ type: 'Circle', center: [12.6, 55.7], radius_meters: 500 }, { distance_meters: 50 }))).toHaveLength(2);
    expect(bufferFeatures(zone({ type: 'Polygon', coordinates: [square] }))).toEqual([]);
    expect(bufferFeatures(zone({ type: 'Polygon', coordinates: [square] }, { distance_meters: 50, enabled: false }))).toEqual([]);
  });
});
