// The GeoJSON (RFC 7946) shapes the API returns. @types/geojson is not installed, so these are the few
// types needed, written to the RFC; swapping in `import type { Feature, LineString } from 'geojson'` later
// changes nothing for callers.

/** [longitude, latitude] in WGS 84 degrees (RFC 7946 section 3.1.1). */
export type Position = [number, number];

export interface LineString {
  type: 'LineString';
  /** Two or more positions. */
  coordinates: Position[];
}

export interface Feature<G, P> {
  type: 'Feature';
  /** null: a feature without a location (RFC 7946 section 3.2). */
  geometry: G | null;
  properties: P;
}
