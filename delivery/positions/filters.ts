// The position stream's filters (docs/console.md "Position stream"): checked here with words that say what
// is wrong, and compiled into one test per position. Pure.
import { Ajv } from 'ajv';
import { POSITION_FILTER_FIELDS, positionFiltersSchema, type PositionFilters } from '../../schemas/position-stream.ts';
import { listed, quote } from '../stream/protocol.ts';

export type PositionMatcher = (mmsi: number, lat: number, lon: number) => boolean;

const validate = new Ajv({ allErrors: true, strict: true }).compile<PositionFilters>(positionFiltersSchema);
const MAX_MMSI = positionFiltersSchema.properties.mmsi.maxItems;

/** The problems of a filters object, or undefined when it is valid. Sizes first, so a huge list is one problem. */
export function positionFilterProblems(filters: unknown): string | undefined {
  if (typeof filters !== 'object' || filters === null || Array.isArray(filters)) return 'filters must be an object';
  const fields = filters as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((k) => !(POSITION_FILTER_FIELDS as string[]).includes(k));
  if (unknown.length > 0) return `unknown filter ${listed(unknown.map(quote), ', ')}; filters are ${POSITION_FILTER_FIELDS.join(', ')}`;
  if (Array.isArray(fields.mmsi) && fields.mmsi.length > MAX_MMSI) return `filters.mmsi has ${fields.mmsi.length} items; at most ${MAX_MMSI}`;
  if (Array.isArray(fields.bbox) && fields.bbox.length !== 4) return `filters.bbox has ${fields.bbox.length} items; it is [west, south, east, north]`;
  if (!validate(filters)) {
    const problems = new Set((validate.errors ?? []).map((e) => `filters${e.instancePath} ${e.message ?? 'is invalid'}`));
    return listed([...problems], '; ');
  }
  const bbox = (filters as PositionFilters).bbox;
  if (bbox) {
    const [west, south, east, north] = bbox as [number, number, number, number];
    const problems: string[] = [];
    if (west < -180 || west > 180 || east < -180 || east > 180) problems.push('filters.bbox west and east are longitudes from -180 to 180');
    if (south < -90 || south > 90 || north < -90 || north > 90) problems.push('filters.bbox south and north are latitudes from -90 to 90');
    if (south > north) problems.push(`filters.bbox south (${south}) is north of north (${north}); bbox is [west, south, east, north]`);
    if (problems.length > 0) return problems.join('; ');
  }
  return undefined;
}

/** A test for positions; call only with filters positionFilterProblems accepted. */
export function compilePositionFilters(filters: PositionFilters): PositionMatcher {
  const vessels = filters.mmsi && filters.mmsi.length > 0 ? new Set(filters.mmsi) : undefined;
  const inBox = boxTest(filters.bbox as [number, number, number, number] | undefined);
  return (mmsi, lat, lon) => (vessels === undefined || vessels.has(mmsi)) && inBox(lat, lon);
}

function boxTest(bbox: [number, number, number, number] | undefined): (lat: number, lon: number) => boolean {
  if (!bbox) return () => true;
  const [west, south, east, north] = bbox;
  // West beyond east: the box crosses the antimeridian, so a longitude is in it east of west or west of east.
  if (west > east) return (lat, lon) => lat >= south && lat <= north && (lon >= west || lon <= east);
  return (lat, lon) => lat >= south && lat <= north && lon >= west && lon <= east;
}
