import { getResolution, latLngToCell } from 'h3-js';
import type { StoredZone } from '../../../schemas/zone.ts';
import { compileZoneShape, INSIDE, IN_BUFFER, type ZoneShape } from '../geometry/zone-shape.ts';
import { unitVector, type Vec3 } from '../geometry/sphere.ts';
import { validateZoneGeometry } from '../geometry/validate.ts';
import { coverZone, ZONE_CELL_RESOLUTION, type CellKind, type ZoneCell } from './h3-cover.ts';

/**
 * All zones in memory, indexed by H3 cell (ARCHITECTURE principle 6): a position is mapped to its
 * res-9 cell; only zones whose cover holds that cell (or one of its parents, for compacted
 * interior cells) are looked at, and only boundary cells run the exact test.
 */
export interface ZoneLocation {
  /** Zones that contain the position (ST_Covers / ST_DWithin semantics, see zone-shape.ts). */
  inside: string[];
  /** Zones whose buffer holds the position while the zone itself does not. */
  inBuffer: string[];
}

export interface IndexedZone {
  readonly id: string;
  readonly shape: ZoneShape;
  /** 0 when the zone has no buffer or its buffer is disabled. */
  readonly bufferMeters: number;
  readonly cells: readonly ZoneCell[];
}

export interface RejectedZone {
  id: string;
  reasons: string[];
}

const KIND_INSIDE = 0;
const KIND_BUFFER = 1;
const KIND_BOUNDARY = 2;
const KIND_CODES: Record<CellKind, number> = { inside: KIND_INSIDE, buffer: KIND_BUFFER, boundary: KIND_BOUNDARY };

interface Entry {
  zone: IndexedZone;
  kind: number;
}

export function bufferMetersOf(zone: Pick<StoredZone, 'buffer'>): number {
  const b = zone.buffer;
  return b && b.enabled !== false ? b.distance_meters : 0;
}

/** Compile one stored zone: exact shape plus H3 cover. Throws on invalid geometry. */
export function indexZone(zone: Pick<StoredZone, 'id' | 'geometry' | 'buffer'>, resolution = ZONE_CELL_RESOLUTION): IndexedZone {
  const bufferMeters = bufferMetersOf(zone);
  const reasons = validateZoneGeometry(zone.geometry, bufferMeters);
  if (reasons.length > 0) throw new RangeError(`zone ${zone.id}: ${reasons.join('; ')}`);
  const shape = compileZoneShape(zone.geometry);
  return { id: zone.id, shape, bufferMeters, cells: coverZone(shape, bufferMeters, resolution) };
}

/**
 * An H3 cell as a number unique among cells of its resolution: the base cell and the first `res`
 * digits (7 + 3 res bits, at most 52). The parent at a coarser resolution r is then
 * floor(key / 8^(res - r)): no call into h3 per level, and numbers make fast map keys.
 */
export function cellKey(cell: string, res: number): number {
  const split = cell.length - 8;
  const hi = parseInt(cell.slice(0, split), 16) & 0xfffff; // index bits 32..51: base cell and digits
  const lo = parseInt(cell.slice(split), 16);
  const shift = (15 - res) * 3;
  return shift >= 32 ? hi >>> (shift - 32) : hi * 2 ** (32 - shift) + (lo >>> shift);
}

interface Level {
  res: number;
  /** 8^(index resolution - res): divides a fine key into this level's key. */
  divisor: number;
  cells: Map<number, Entry[]>;
}

export class ZoneIndex {
  /** Finest level first; coarser levels hold compacted cells. */
  private readonly levels: Level[];
  readonly zones: ReadonlyMap<string, IndexedZone>;

  private constructor(
    zones: readonly IndexedZone[],
    readonly resolution: number,
    readonly rejected: readonly RejectedZone[],
  ) {
    const byRes = new Map<number, Level>();
    for (const zone of zones) {
      for (const { cell, kind } of zone.cells) {
        const res = getResolution(cell);
        let level = byRes.get(res);
        if (!level) byRes.set(res, (level = { res, divisor: 8 ** (resolution - res), cells: new Map() }));
        const key = cellKey(cell, res);
        const entry = { zone, kind: KIND_CODES[kind] };
        const entries = level.cells.get(key);
        if (entries) entries.push(entry);
        else level.cells.set(key, [entry]);
      }
    }
    this.levels = [...byRes.values()].sort((a, b) => b.res - a.res);
    this.zones = new Map(zones.map((z) => [z.id, z]));
  }

  /** Build from stored zones; zones with invalid geometry are left out and listed in `rejected`. */
  static build(zones: readonly Pick<StoredZone, 'id' | 'geometry' | 'buffer'>[], resolution = ZONE_CELL_RESOLUTION): ZoneIndex {
    const indexed: IndexedZone[] = [];
    const rejected: RejectedZone[] = [];
    for (const zone of zones) {
      try {
        indexed.push(indexZone(zone, resolution));
      } catch (err) {
        rejected.push({ id: zone.id, reasons: [err instanceof Error ? err.message : String(err)] });
      }
    }
    return new ZoneIndex(indexed, resolution, rejected);
  }

  /** Build from zones already compiled (e.g. to reuse unchanged zones on refresh). */
  static fromIndexed(zones: readonly IndexedZone[], resolution = ZONE_CELL_RESOLUTION): ZoneIndex {
    return new ZoneIndex(zones, resolution, []);
  }

  get cellCount(): number {
    return this.levels.reduce((n, l) => n + l.cells.size, 0);
  }

  /** Zones whose cover holds the position's cell (the cheap filter; may include zones nearby). */
  candidates(lat: number, lon: number): string[] {
    const ids: string[] = [];
    const key = this.keyOf(lat, lon);
    if (key === undefined) return ids;
    for (const level of this.levels) {
      const entries = level.cells.get(Math.floor(key / level.divisor));
      if (entries) for (const e of entries) ids.push(e.zone.id);
    }
    return ids;
  }

  locate(lat: number, lon: number): ZoneLocation {
    const result: ZoneLocation = { inside: [], inBuffer: [] };
    const key = this.keyOf(lat, lon);
    if (key === undefined) return result;
    let p: Vec3 | undefined;
    for (const level of this.levels) {
      const entries = level.cells.get(Math.floor(key / level.divisor));
      if (!entries) continue;
      for (const { zone, kind } of entries) {
        let placement = kind === KIND_INSIDE ? INSIDE : IN_BUFFER;
        if (kind === KIND_BOUNDARY) placement = zone.shape.place(lat, lon, zone.bufferMeters, (p ??= unitVector(lat, lon)));
        if (placement === INSIDE) result.inside.push(zone.id);
        else if (placement === IN_BUFFER) result.inBuffer.push(zone.id);
      }
    }
    return result;
  }

  private keyOf(lat: number, lon: number): number | undefined {
    if (!(Math.abs(lat) <= 90 && Math.abs(lon) <= 180)) return undefined;
    return cellKey(latLngToCell(lat, lon, this.resolution), this.resolution);
  }
}
