import { describe, expect, it } from 'vitest';
import { createVesselFeed, UNKNOWN_COLOUR, type VesselPosition } from '../../../console/src/vessel-feed.ts';
import { FIELDS, SHARDS, unpack } from '../../../console/src/vessel-pack.ts';

const at = (mmsi: number, lon: number, extra: Partial<VesselPosition> = {}): VesselPosition => ({ mmsi, lat: 55.7, lon, reported_at: '2026-11-26T08:00:00Z', ...extra });
const packed = (shard: Float64Array | null | undefined) => (shard ? [...shard] : shard);

describe('the vessel feed', () => {
  it('packs each shard\'s vessels into a frame, five numbers each, and replaces them all on a snapshot', () => {
    const feed = createVesselFeed();
    // MMSI 4 and 8 share shard 0, 5 is in shard 1.
    feed.apply([at(4, 12.5), at(5, 12.6, { sog: 8, heading: 90, cog: 80 }), at(8, 12.7)], [], true);
    expect(feed.changed()).toBe(true);
    const first = feed.frame();
    expect(first.seq).toBe(1);
    expect(first.shards).toHaveLength(SHARDS);
    expect(packed(first.shards[0])).toEqual([4, 12.5, 55.7, 0, 0, 8, 12.7, 55.7, 0, 0]);
    expect(packed(first.shards[1])).toEqual([5, 12.6, 55.7, 90, 8]);
    expect(packed(first.shards[2])).toEqual([]);
    expect(feed.changed()).toBe(false);
    feed.apply([at(6, 12.8)], [], true);
    const second = feed.frame();
    expect(second.shards.map(packed)).toEqual([[], [], [6, 12.8, 55.7, 0, 0], []]);
  });

  it('sends only the shards that changed: vessels that reported or left', () => {
    const feed = createVesselFeed();
    feed.apply([at(4, 12.5), at(5, 12.6), at(8, 12.7)], [], true);
    feed.frame();
    feed.apply([at(5, 12.65, { cog: 45 })], [4, 99], false);
    const frame = feed.frame();
    expect(packed(frame.shards[0])).toEqual([8, 12.7, 55.7, 0, 0]);
    expect(packed(frame.shards[1])).toEqual([5, 12.65, 55.7, 45, 0]);
    // 99 is in shard 3: named as left, so its shard is sent (empty) in case the map had it.
    expect(packed(frame.shards[2])).toBeNull();
    expect(packed(frame.shards[3])).toEqual([]);
    expect(feed.size()).toBe(2);
    expect(feed.get(4)).toBeUndefined();
  });

  it('sends a vessel\'s looks once, and all of them again when a worker asks', () => {
    const feed = createVesselFeed();
    feed.describe(1, 'tanker', ' NORDIC STAR ');
    feed.describe(2, undefined, undefined);
    expect(feed.frame().looks).toEqual([[1, '#b91c1c', 'NORDIC STAR'], [2, UNKNOWN_COLOUR, '']]);
    expect(feed.changed()).toBe(false);
    expect(feed.frame().looks).toEqual([]);
    feed.resendLooks();
    expect(feed.changed()).toBe(true);
    const again = feed.frame();
    expect(again.looks).toHaveLength(2);
    expect(again.shards.every((s) => s !== null)).toBe(true);
  });
});

describe('unpacking in the map\'s worker', () => {
  it('builds a GeoJSON point per vessel with the id, course, moving, colour and name the style reads', () => {
    const feed = createVesselFeed();
    feed.apply([at(4, 12.5, { sog: 0.2, cog: 10 }), at(8, 12.6, { sog: 8, heading: 90 })], [], true);
    feed.describe(8, 'cargo', 'ELBE');
    const frame = feed.frame();
    expect(frame.shards[0]?.length).toBe(2 * FIELDS);
    const looks = new Map(frame.looks.map(([m, colour, name]) => [m, { colour, name }]));
    expect(unpack(frame.shards[0]!, looks, UNKNOWN_COLOUR).features).toEqual([
      { type: 'Feature', id: 4, properties: { mmsi: 4, course: 10, moving: false, colour: UNKNOWN_COLOUR, name: '' }, geometry: { type: 'Point', coordinates: [12.5, 55.7] } },
      { type: 'Feature', id: 8, properties: { mmsi: 8, course: 90, moving: true, colour: '#15803d', name: 'ELBE' }, geometry: { type: 'Point', coordinates: [12.6, 55.7] } },
    ]);
  });
});
