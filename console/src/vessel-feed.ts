// The vessels the map holds (docs/console.md "Map"): the newest position of each, from the position stream's
// messages (a snapshot replaces them all), and each one's colour and name from the vessel API. A frame is
// what the map's worker needs to draw them: the vessels of each shard that changed, packed (vessel-pack.ts;
// null for a shard that did not), and the looks that changed since the last frame. No DOM, no MapLibre:
// tested in test/unit/console/vessel-feed.test.ts.
import { pack, SHARDS, shardOf, type Looks, type PackedVessel } from './vessel-pack.ts';

export interface VesselPosition extends PackedVessel {
  reported_at: string;
}

export interface VesselFrame {
  seq: number;
  /** Per shard: its vessels packed, or null when none of them changed. */
  shards: (Float64Array | null)[];
  looks: Looks[];
}

export const CATEGORY_COLOURS: Record<string, string> = {
  cargo: '#15803d', tanker: '#b91c1c', passenger: '#1d4ed8', fishing: '#a16207', tug: '#7c3aed', pilot: '#0e7490',
  pleasure: '#db2777', sailing: '#db2777', high_speed_craft: '#ea580c', military: '#374151',
};
export const UNKNOWN_COLOUR = '#475569';

export function createVesselFeed() {
  const vessels = new Map<number, VesselPosition>();
  const counts = new Array<number>(SHARDS).fill(0);
  const known = new Map<number, Looks>();
  const dirty = new Set<number>();
  let looks: Looks[] = [];
  let seq = 0;

  const remove = (mmsi: number) => {
    if (vessels.delete(mmsi)) counts[shardOf(mmsi)]!--;
    dirty.add(shardOf(mmsi));
  };
  return {
    /** Takes a positions message of the stream; a snapshot replaces what the map holds. */
    apply(positions: VesselPosition[], left: number[], snapshot: boolean): void {
      if (snapshot) {
        vessels.clear();
        counts.fill(0);
        for (let s = 0; s < SHARDS; s++) dirty.add(s);
      }
      for (const p of positions) {
        const s = shardOf(p.mmsi);
        if (!vessels.has(p.mmsi)) counts[s]!++;
        vessels.set(p.mmsi, p);
        dirty.add(s);
      }
      left.forEach(remove);
    },
    /** Category and name (from the vessel API): the arrow's colour and the label. */
    describe(mmsi: number, category: string | undefined, name: string | undefined): void {
      const look: Looks = [mmsi, CATEGORY_COLOURS[category ?? ''] ?? UNKNOWN_COLOUR, name?.trim() ?? ''];
      known.set(mmsi, look);
      looks.push(look);
      dirty.add(shardOf(mmsi));
    },
    /** The next frame carries every vessel's looks (a worker that starts listening has none). */
    resendLooks(): void {
      looks = [...known.values()];
      for (let s = 0; s < SHARDS; s++) dirty.add(s);
    },
    changed: () => dirty.size > 0,
    /** What the worker needs to draw the vessels as they are now; clears the changes. */
    frame(): VesselFrame {
      const shards = counts.map((count, s) => (dirty.has(s) ? pack(vessels.values(), s, count) : null));
      const frame = { seq: ++seq, shards, looks };
      looks = [];
      dirty.clear();
      return frame;
    },
    size: () => vessels.size,
    get: (mmsi: number) => vessels.get(mmsi),
  };
}

export type VesselFeed = ReturnType<typeof createVesselFeed>;
