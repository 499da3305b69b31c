// The vessels as one Float64Array, five numbers each (MMSI, lon, lat, course, speed), which is how the page
// hands them to MapLibre's worker (vessel-worker.ts): a typed array is copied in one piece, where a GeoJSON
// object of 10,000 features is walked object by object by MapLibre's serializer on the page's main thread,
// about 90 ms a second in the benchmark. The worker turns it back into GeoJSON. Vessels are split into
// SHARDS sources by MMSI, each its own tiles: the page's main thread then takes each tile's result from the
// worker in pieces of a quarter of the vessels, not one task for the thousands a harbour tile holds. Pure.
export const FIELDS = 5;
export const SHARDS = 4;
export const shardOf = (mmsi: number) => mmsi % SHARDS;
/** Moving, for the arrow's size: over half a knot. */
const MOVING_KNOTS = 0.5;

export interface PackedVessel {
  mmsi: number;
  lon: number;
  lat: number;
  heading?: number;
  cog?: number;
  sog?: number;
}

/** A vessel's colour and name, sent to the worker when they change. */
export type Looks = [mmsi: number, colour: string, name: string];

/** The vessels of one shard, FIELDS numbers each. */
export function pack(vessels: Iterable<PackedVessel>, shard: number, count: number): Float64Array {
  const out = new Float64Array(count * FIELDS);
  let i = 0;
  for (const v of vessels) {
    if (shardOf(v.mmsi) !== shard) continue;
    out[i] = v.mmsi;
    out[i + 1] = v.lon;
    out[i + 2] = v.lat;
    out[i + 3] = v.heading ?? v.cog ?? 0;
    out[i + 4] = v.sog ?? 0;
    i += FIELDS;
  }
  return out;
}

export function unpack(packed: Float64Array, looks: Map<number, { colour: string; name: string }>, unknownColour: string): GeoJSON.FeatureCollection<GeoJSON.Point> {
  const features: GeoJSON.Feature<GeoJSON.Point>[] = new Array(packed.length / FIELDS);
  for (let i = 0, f = 0; i < packed.length; i += FIELDS, f++) {
    const mmsi = packed[i] as number;
    const look = looks.get(mmsi);
    features[f] = {
      type: 'Feature', id: mmsi,
      properties: { mmsi, course: packed[i + 3], moving: (packed[i + 4] as number) > MOVING_KNOTS, colour: look?.colour ?? unknownColour, name: look?.name ?? '' },
      geometry: { type: 'Point', coordinates: [packed[i + 1] as number, packed[i + 2] as number] },
    };
  }
  return { type: 'FeatureCollection', features };
}
