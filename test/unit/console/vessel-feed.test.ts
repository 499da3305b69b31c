import { describe, expect, it } from 'vitest';
import { createVesselFeed, type VesselPosition } from '../../../console/src/vessel-feed.ts';

const at = (mmsi: number, lon: number, extra: Partial<VesselPosition> = {}): VesselPosition => ({ mmsi, lat: 55.7, lon, reported_at: '2026-11-26T08:00:00Z', ...extra });

describe('the vessel feed', () => {
  it('replaces everything on a snapshot, then sends only what moved, by id', () => {
    const feed = createVesselFeed();
    feed.apply([at(1, 12.5), at(2, 12.6, { sog: 8, heading: 90 })], [], true);
    const first = feed.diff();
    expect(first.removeAll).toBe(true);
    expect(first.add?.map((f) => f.id)).toEqual([1, 2]);
    expect(first.add?.[1]?.properties).toMatchObject({ course: 90, moving: true, colour: '#475569', name: '' });
    expect(feed.changed()).toBe(false);

    feed.apply([at(2, 12.61, { sog: 0, cog: 45 })], [], false);
    expect(feed.diff()).toEqual({
      remove: [], add: [],
      update: [{ id: 2, newGeometry: { type: 'Point', coordinates: [12.61, 55.7] }, addOrUpdateProperties: [{ key: 'course', value: 45 }, { key: 'moving', value: false }] }],
    });
  });

  it('adds vessels new to the map and removes those that left it', () => {
    const feed = createVesselFeed();
    feed.apply([at(1, 12.5)], [], true);
    feed.diff();
    feed.apply([at(3, 12.7)], [1], false);
    const diff = feed.diff();
    expect(diff.remove).toEqual([1]);
    expect(diff.add?.map((f) => f.id)).toEqual([3]);
    expect(feed.size()).toBe(1);
    expect(feed.get(1)).toBeUndefined();
  });

  it('keeps a vessel that left and came back before the map drew, and forgets one it never had', () => {
    const feed = createVesselFeed();
    feed.apply([at(1, 12.5)], [], true);
    feed.diff();
    feed.apply([], [1, 99], false);
    feed.apply([at(1, 12.55)], [], false);
    const diff = feed.diff();
    expect(diff.remove).toEqual([]);
    expect(diff.update?.map((u) => u.id)).toEqual([1]);
  });

  it('sends a new name and colour of a shown vessel even when it did not move', () => {
    const feed = createVesselFeed();
    feed.apply([at(1, 12.5)], [], true);
    feed.diff();
    feed.describe(1, 'tanker', ' NORDIC STAR ');
    feed.describe(7, 'cargo', 'NOT SHOWN');
    const diff = feed.diff();
    expect(diff.update).toHaveLength(1);
    expect(diff.update?.[0]?.addOrUpdateProperties).toContainEqual({ key: 'name', value: 'NORDIC STAR' });
    expect(diff.update?.[0]?.addOrUpdateProperties).toContainEqual({ key: 'colour', value: '#b91c1c' });
    feed.apply([at(7, 12.6)], [], false);
    expect(feed.diff().add?.[0]?.properties).toMatchObject({ name: 'NOT SHOWN', colour: '#15803d' });
  });
});
