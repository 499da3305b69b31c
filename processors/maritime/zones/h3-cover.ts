import { cellToBoundary, cellToChildren, cellToLatLng, getHexagonEdgeLengthAvg, gridDisk, latLngToCell } from 'h3-js';
import {
  CAP_BOUNDARY,
  CAP_BUFFER,
  CAP_INSIDE,
  CAP_OUTSIDE,
  type ZoneShape,
} from '../geometry/zone-shape.ts';
import { SPHERE_RADIUS_M, latLonOf, sphereAngle, unitVector, type Vec3 } from '../geometry/sphere.ts';

/**
 * H3 resolution of the zone index. Res 9 cells are ~0.1 km2 (edge ~175 m, ~350 m across): small
 * against port zones (berths, 200 m channels, anchorages of a few hundred metres), so only
 * positions within a few hundred metres of an edge need the exact test, yet a 1,000-zone port
 * stays at some hundred thousand cells. Res 8 cells (~1 km across) are as large as the zones,
 * so most of them would be boundary cells; res 10 multiplies the cells by 7 to save exact tests
 * that already cost well under a microsecond.
 */
export const ZONE_CELL_RESOLUTION = 9;

/**
 * - inside: every point of the cell (and, for a coarser cell, of all its res-9 descendants) is in
 *   the zone: decided without the exact test.
 * - buffer: every point is outside the zone and within the buffer distance: decided in buffer.
 * - boundary: the cell may hold points of more than one kind: the exact test decides.
 */
export type CellKind = 'inside' | 'buffer' | 'boundary';

export interface ZoneCell {
  /** H3 index (hex string); coarser than the index resolution where a whole parent agrees. */
  cell: string;
  kind: CellKind;
}

/** Largest number of grid rings of the starting disk; sets the coarsest starting resolution. */
const MAX_START_RINGS = 4;
/** Descendants of an H3 cell reach ~1.05 times its circumradius from its centre (aperture 7 is
 * not nested); 1.15 leaves room for distorted cells near icosahedron edges and pentagons. */
const DESCENDANT_REACH = 1.15;
const OWN_REACH = 1.02;
const ANGLE_SLACK = 1e-8;

/**
 * The cells that cover a zone and its buffer completely. Instead of rasterising a polygon
 * (h3 polygonToCells treats edges as straight in degrees, which they are not), each candidate
 * cell is bounded by a spherical cap and classified against the zone's exact distance bounds;
 * cells that cannot be decided are refined down to `resolution`. Conservative by construction:
 * a position whose res-9 cell is not in the cover is neither in the zone nor in its buffer.
 */
export function coverZone(shape: ZoneShape, bufferMeters: number, resolution = ZONE_CELL_RESOLUTION): ZoneCell[] {
  const [lat, lon] = latLonOf(shape.centre);
  const extent = shape.angularRadius + (Math.max(0, bufferMeters) / SPHERE_RADIUS_M) * 1.01;
  const start = startResolution(extent, resolution);
  const centreCell = latLngToCell(lat, lon, start);
  const [cellLat, cellLon] = cellToLatLng(centreCell);
  const rings = Math.ceil(extent / (1.5 * circumradius(centreCell, unitVector(cellLat, cellLon)))) + 2;
  const out: ZoneCell[] = [];
  const visit = (cell: string, res: number): void => {
    const [clat, clon] = cellToLatLng(cell);
    const centre = unitVector(clat, clon);
    const alpha = circumradius(cell, centre) * (res < resolution ? DESCENDANT_REACH : OWN_REACH) + ANGLE_SLACK;
    const cls = shape.classifyCap(centre, clat, alpha, bufferMeters);
    if (cls === CAP_OUTSIDE) return;
    if (cls === CAP_INSIDE) out.push({ cell, kind: 'inside' });
    else if (cls === CAP_BUFFER) out.push({ cell, kind: 'buffer' });
    else if (cls === CAP_BOUNDARY && res < resolution) for (const child of cellToChildren(cell, res + 1)) visit(child, res + 1);
    else out.push({ cell, kind: 'boundary' });
  };
  for (const cell of gridDisk(centreCell, rings)) visit(cell, start);
  return out;
}

function startResolution(extent: number, resolution: number): number {
  for (let res = resolution; res > 0; res--) {
    const approxCircumradius = getHexagonEdgeLengthAvg(res, 'm') / SPHERE_RADIUS_M;
    if (extent / (1.5 * approxCircumradius) <= MAX_START_RINGS) return res;
  }
  return 0;
}

/** Cells of overlapping zones are classified many times; their size is worth remembering. */
const circumradii = new Map<string, number>();
const MAX_REMEMBERED = 200_000;

/** Largest great-circle angle from a cell's centre (unit vector `c`) to its vertices. */
function circumradius(cell: string, c: Vec3): number {
  const known = circumradii.get(cell);
  if (known !== undefined) return known;
  let max = 0;
  for (const [vlat, vlon] of cellToBoundary(cell)) max = Math.max(max, sphereAngle(c, unitVector(vlat, vlon)));
  if (circumradii.size >= MAX_REMEMBERED) circumradii.clear();
  circumradii.set(cell, max);
  return max;
}
