import { ZONE_LIMITS, type Position, type ZoneGeometry } from '../../../schemas/zone.ts';
import { GnomonicFrame, projectRing, ringArea, ringContains, type PlaneRing } from './gnomonic.ts';
import { SPHERE_RADIUS_M, sphereAngle, unitVector } from './sphere.ts';
import { findIntersection, type Segment } from './segments.ts';

/**
 * Checks what the JSON Schema cannot: ring closure, ring size, coordinate ranges (again, for
 * callers that skip the schema), total vertices, extent, and self-intersection on the sphere
 * (edges are great-circle arcs, tested as straight lines in a gnomonic projection, so the answer
 * is the one geography needs; `ST_IsValid` on a lon/lat geometry is planar and wrong for zones
 * across the antimeridian). Returns reasons; empty means valid.
 *
 * Antimeridian: supported. Every geometric step works on unit vectors or in a projection about
 * the zone's centre, never on longitude differences, so a zone may span +-180.
 */
export function validateZoneGeometry(geometry: ZoneGeometry, bufferMeters = 0): string[] {
  const reasons = checkStructure(geometry);
  if (reasons.length > 0) return reasons;
  const all = allPositions(geometry);
  if (all.length > ZONE_LIMITS.maxVertices) return [`too many vertices: ${all.length} (limit ${ZONE_LIMITS.maxVertices})`];
  const frame = GnomonicFrame.about(all);
  const reach = Math.max(...all.map(([lon, lat]) => sphereAngle(frame.centre, unitVector(lat, lon)))) * SPHERE_RADIUS_M;
  const extent = reach + widthOf(geometry) + Math.max(0, bufferMeters);
  if (!(extent <= ZONE_LIMITS.maxExtentMeters)) {
    return [`zone too large: reaches ${Math.round(extent / 1000)} km from its centre, buffer included (limit ${ZONE_LIMITS.maxExtentMeters / 1000} km)`];
  }
  if (geometry.type === 'Polygon') return checkPolygons(frame, [geometry.coordinates], false);
  if (geometry.type === 'MultiPolygon') return checkPolygons(frame, geometry.coordinates, true);
  return [];
}

function widthOf(geometry: ZoneGeometry): number {
  if (geometry.type === 'Circle') return geometry.radius_meters;
  if (geometry.type === 'Corridor') return geometry.width_meters / 2;
  return 0;
}

function allPositions(geometry: ZoneGeometry): Position[] {
  switch (geometry.type) {
    case 'Polygon':
      return geometry.coordinates.flat();
    case 'MultiPolygon':
      return geometry.coordinates.flat(2);
    case 'Circle':
      return [geometry.center];
    case 'Corridor':
      return [...geometry.centerline];
  }
}

function checkPosition(p: Position, path: string): string[] {
  const [lon, lat] = p;
  if (!Number.isFinite(lon) || !Number.isFinite(lat)) return [`${path}: coordinates must be finite numbers`];
  const out: string[] = [];
  if (lon < -180 || lon > 180) out.push(`${path}: longitude out of range (-180..180): ${lon}`);
  if (lat < -90 || lat > 90) out.push(`${path}: latitude out of range (-90..90): ${lat}`);
  return out;
}

function checkRing(ring: readonly Position[], path: string): string[] {
  const out = ring.flatMap((p, i) => checkPosition(p, `${path}[${i}]`));
  if (out.length > 0) return out;
  if (ring.length < 4) return [`${path}: ring has fewer than 4 positions`];
  const first = ring[0] as Position;
  const last = ring[ring.length - 1] as Position;
  if (first[0] !== last[0] || first[1] !== last[1]) return [`${path}: unclosed ring (first and last positions differ)`];
  if (new Set(ring.map(([lon, lat]) => `${lon},${lat}`)).size < 3) return [`${path}: ring has fewer than 3 distinct positions`];
  return [];
}

function checkMeasure(value: number, name: string, limit: number): string[] {
  if (!Number.isFinite(value) || value <= 0) return [`geometry.${name} must be greater than 0`];
  if (value > limit) return [`geometry.${name} exceeds the limit of ${limit}`];
  return [];
}

function checkStructure(geometry: ZoneGeometry): string[] {
  switch (geometry.type) {
    case 'Polygon':
      if (geometry.coordinates.length === 0) return ['geometry.coordinates: a polygon needs an outer ring'];
      return geometry.coordinates.flatMap((ring, i) => checkRing(ring, `geometry.coordinates[${i}]`));
    case 'MultiPolygon':
      if (geometry.coordinates.length === 0) return ['geometry.coordinates: a multipolygon needs a polygon'];
      return geometry.coordinates.flatMap((poly, j) =>
        poly.length === 0
          ? [`geometry.coordinates[${j}]: a polygon needs an outer ring`]
          : poly.flatMap((ring, i) => checkRing(ring, `geometry.coordinates[${j}][${i}]`)),
      );
    case 'Circle':
      return [...checkPosition(geometry.center, 'geometry.center'), ...checkMeasure(geometry.radius_meters, 'radius_meters', ZONE_LIMITS.maxRadiusMeters)];
    case 'Corridor': {
      const line = geometry.centerline;
      const out = line.flatMap((p, i) => checkPosition(p, `geometry.centerline[${i}]`));
      if (line.length < 2) out.push('geometry.centerline: needs at least 2 positions');
      else if (out.length === 0 && line.every(([lon, lat]) => lon === line[0]?.[0] && lat === line[0]?.[1])) {
        out.push('geometry.centerline: has zero length (all positions equal)');
      }
      return [...out, ...checkMeasure(geometry.width_meters, 'width_meters', ZONE_LIMITS.maxCorridorWidthMeters)];
    }
  }
}

interface PlanePolygon {
  rings: PlaneRing[];
  path: string;
}

/** Rings must be simple, holes inside their outer ring and apart from each other, parts disjoint. */
function checkPolygons(frame: GnomonicFrame, polygons: readonly (readonly (readonly Position[])[])[], multi: boolean): string[] {
  const path = 'geometry.coordinates';
  const planes: PlanePolygon[] = [];
  const segments: Segment[] = [];
  for (const [j, polygon] of polygons.entries()) {
    const polyPath = multi ? `${path}[${j}]` : path;
    const rings: PlaneRing[] = [];
    for (const [i, ring] of polygon.entries()) {
      const plane = projectRing(frame, ring);
      if (!plane) return [`${polyPath}[${i}]: ring too far from the zone's centre`];
      rings.push(plane);
      pushSegments(segments, plane, j, i);
    }
    planes.push({ rings, path: polyPath });
  }
  const hit = findIntersection(segments);
  if (hit) {
    const [lat, lon] = frame.unproject(hit.x, hit.y);
    const where = `near (${lon.toFixed(6)}, ${lat.toFixed(6)})`;
    const a = planes[hit.a.polygon]?.path ?? path;
    if (hit.a.polygon !== hit.b.polygon) return [`${path}: polygons ${hit.a.polygon} and ${hit.b.polygon} intersect ${where}`];
    if (hit.a.ring === hit.b.ring) return [`${a}[${hit.a.ring}]: self-intersection ${where}`];
    return [`${a}: rings ${hit.a.ring} and ${hit.b.ring} intersect ${where}`];
  }
  for (const { rings, path: polyPath } of planes) {
    // A simple ring of zero area can only be degenerate; under a square decimetre counts as zero.
    const flat = rings.findIndex((r) => Math.abs(ringArea(r)) * SPHERE_RADIUS_M ** 2 < 0.01);
    if (flat >= 0) return [`${polyPath}[${flat}]: ring has zero area`];
  }
  return checkNesting(planes, path);
}

/** With no edges crossing, one vertex tells on which side of another ring a whole ring lies. */
function checkNesting(planes: PlanePolygon[], path: string): string[] {
  for (const { rings, path: polyPath } of planes) {
    const outer = rings[0] as PlaneRing;
    for (let h = 1; h < rings.length; h++) {
      const hole = rings[h] as PlaneRing;
      if (!ringHasPointIn(outer, hole)) return [`${polyPath}[${h}]: hole is not inside the outer ring`];
      for (let k = 1; k < rings.length; k++) {
        if (k !== h && ringHasPointIn(rings[k] as PlaneRing, hole)) return [`${polyPath}[${h}]: hole lies inside hole ${k}`];
      }
    }
  }
  for (let a = 0; a < planes.length; a++) {
    for (let b = 0; b < planes.length; b++) {
      if (a === b) continue;
      const outerA = (planes[a] as PlanePolygon).rings[0] as PlaneRing;
      const inner = (planes[b] as PlanePolygon).rings;
      if (ringHasPointIn(inner[0] as PlaneRing, outerA) && !inner.slice(1).some((hole) => ringHasPointIn(hole, outerA))) {
        return [`${path}: polygons ${b} and ${a} overlap (polygon ${a} lies inside polygon ${b})`];
      }
    }
  }
  return [];
}

/** Whether some vertex of `ring` (not on `container`'s boundary) is inside `container`. */
function ringHasPointIn(container: PlaneRing, ring: PlaneRing): boolean {
  for (let i = 0; i + 2 < ring.length; i += 2) {
    const x = ring[i]!;
    const y = ring[i + 1]!;
    if (!isVertexOf(container, x, y)) return ringContains(container, x, y);
  }
  return false;
}

function isVertexOf(ring: PlaneRing, x: number, y: number): boolean {
  for (let i = 0; i < ring.length; i += 2) if (ring[i] === x && ring[i + 1] === y) return true;
  return false;
}

/** Edges of a ring, repeated positions skipped, numbered so that neighbours differ by one. */
function pushSegments(out: Segment[], ring: PlaneRing, polygon: number, ringIndex: number): void {
  const edges: Segment[] = [];
  for (let i = 0; i + 3 < ring.length; i += 2) {
    const [x1, y1, x2, y2] = [ring[i]!, ring[i + 1]!, ring[i + 2]!, ring[i + 3]!];
    if (x1 === x2 && y1 === y2) continue;
    edges.push({ x1, y1, x2, y2, polygon, ring: ringIndex, index: edges.length, ringSize: 0 });
  }
  for (const e of edges) out.push({ ...e, ringSize: edges.length });
}
