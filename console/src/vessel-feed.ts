// The vessels the map holds, and what changed since the map last drew them (docs/console.md "Map"). The map
// applies the changes with MapLibre's `updateData` by feature id (the MMSI) instead of replacing the whole
// GeoJSON source with `setData`: the whole set of 10,000 vessels rebuilt and sent to the worker every
// second is what freezes pages (maplibre-gl-js #106, #6154). A snapshot replaces everything. No DOM, no
// MapLibre: pure bookkeeping, tested in test/unit/console/vessel-feed.test.ts.
export interface VesselPosition {
  mmsi: number;
  lat: number;
  lon: number;
  sog?: number;
  cog?: number;
  heading?: number;
  reported_at: string;
}

/** MapLibre's GeoJSONSourceDiff, the parts used here. */
export interface VesselDiff {
  removeAll?: boolean;
  remove?: number[];
  add?: GeoJSON.Feature<GeoJSON.Point>[];
  update?: { id: number; newGeometry: GeoJSON.Point; addOrUpdateProperties: { key: string; value: unknown }[] }[];
}

const CATEGORY_COLOURS: Record<string, string> = {
  cargo: '#15803d', tanker: '#b91c1c', passenger: '#1d4ed8', fishing: '#a16207', tug: '#7c3aed', pilot: '#0e7490',
  pleasure: '#db2777', sailing: '#db2777', high_speed_craft: '#ea580c', military: '#374151',
};
const UNKNOWN_COLOUR = '#475569';

export function createVesselFeed() {
  const vessels = new Map<number, VesselPosition>();
  const known = new Map<number, { colour: string; name: string }>();
  /** Ids in the map's source now. */
  const shown = new Set<number>();
  const moved = new Set<number>();
  const renamed = new Set<number>();
  const gone = new Set<number>();
  let replaceAll = false;

  const course = (v: VesselPosition) => v.heading ?? v.cog ?? 0;
  const moving = (v: VesselPosition) => (v.sog ?? 0) > 0.5;
  const looks = (mmsi: number) => known.get(mmsi) ?? { colour: UNKNOWN_COLOUR, name: '' };
  const feature = (v: VesselPosition): GeoJSON.Feature<GeoJSON.Point> => ({
    type: 'Feature', id: v.mmsi,
    properties: { mmsi: v.mmsi, course: course(v), moving: moving(v), ...looks(v.mmsi) },
    geometry: { type: 'Point', coordinates: [v.lon, v.lat] },
  });

  function fullDiff(): VesselDiff {
    replaceAll = false;
    shown.clear();
    moved.clear();
    renamed.clear();
    gone.clear();
    const add: GeoJSON.Feature<GeoJSON.Point>[] = [];
    for (const v of vessels.values()) {
      shown.add(v.mmsi);
      add.push(feature(v));
    }
    return { removeAll: true, add };
  }

  return {
    /** Takes a positions message of the stream; a snapshot replaces what the map holds. */
    apply(positions: VesselPosition[], left: number[], snapshot: boolean): void {
      if (snapshot) {
        vessels.clear();
        replaceAll = true;
      }
      for (const p of positions) {
        vessels.set(p.mmsi, p);
        moved.add(p.mmsi);
      }
      for (const mmsi of left) {
        vessels.delete(mmsi);
        moved.delete(mmsi);
        gone.add(mmsi);
      }
    },
    /** Name and category (from the vessel API): the arrow's colour and the label. */
    describe(mmsi: number, category: string | undefined, name: string | undefined): void {
      known.set(mmsi, { colour: CATEGORY_COLOURS[category ?? ''] ?? UNKNOWN_COLOUR, name: name?.trim() ?? '' });
      renamed.add(mmsi);
    },
    changed: () => replaceAll || moved.size > 0 || renamed.size > 0 || gone.size > 0,
    /** What the source must do to show the vessels as they are now; clears the changes. */
    diff(): VesselDiff {
      if (replaceAll) return fullDiff();
      const remove: number[] = [];
      const add: GeoJSON.Feature<GeoJSON.Point>[] = [];
      const update: NonNullable<VesselDiff['update']> = [];
      for (const mmsi of gone) if (!vessels.has(mmsi) && shown.delete(mmsi)) remove.push(mmsi);
      const visit = (mmsi: number) => {
        const v = vessels.get(mmsi);
        if (!v) return;
        if (!shown.has(mmsi)) {
          shown.add(mmsi);
          add.push(feature(v));
          return;
        }
        const props: { key: string; value: unknown }[] = [{ key: 'course', value: course(v) }, { key: 'moving', value: moving(v) }];
        if (renamed.has(mmsi)) props.push({ key: 'colour', value: looks(mmsi).colour }, { key: 'name', value: looks(mmsi).name });
        update.push({ id: mmsi, newGeometry: { type: 'Point', coordinates: [v.lon, v.lat] }, addOrUpdateProperties: props });
      };
      moved.forEach(visit);
      for (const mmsi of renamed) if (!moved.has(mmsi)) visit(mmsi);
      moved.clear();
      renamed.clear();
      gone.clear();
      return { remove, add, update };
    },
    size: () => vessels.size,
    get: (mmsi: number) => vessels.get(mmsi),
  };
}

export type VesselFeed = ReturnType<typeof createVesselFeed>;
