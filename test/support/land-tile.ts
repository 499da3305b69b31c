// Whether a point is land in a land tile as the api role serves it (/console/land/{z}/{x}/{y}.pbf): the tile
// holding the point at a zoom, decoded with @mapbox/vector-tile, and the point tested against each polygon
// of its 'land' layer in tile coordinates (non-zero winding over every ring, as a fill draws it).
import { VectorTile } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';

/** The tile of a zoom holding a point, and the point in that tile's coordinates (0..extent). */
export function tileOf(lon: number, lat: number, z: number): { z: number; x: number; y: number; px: number; py: number } {
  const n = 2 ** z;
  const fx = ((lon + 180) / 360) * n;
  const r = (lat * Math.PI) / 180;
  const fy = ((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n;
  const x = Math.floor(fx);
  const y = Math.floor(fy);
  return { z, x, y, px: fx - x, py: fy - y };
}

/** Whether the point is land in the tile's bytes (null or empty: open sea). */
export function landAt(tile: Uint8Array | null, px: number, py: number): boolean {
  if (!tile || tile.length === 0) return false;
  const layer = new VectorTile(new PbfReader(tile)).layers.land;
  if (!layer) return false;
  const x = px * layer.extent;
  const y = py * layer.extent;
  let winding = 0;
  for (let i = 0; i < layer.length; i++) {
    for (const ring of layer.feature(i).loadGeometry()) {
      for (let a = 0, b = ring.length - 1; a < ring.length; b = a++) {
        const p = ring[a] as { x: number; y: number };
        const q = ring[b] as { x: number; y: number };
        if (q.y <= y) {
          if (p.y > y && (p.x - q.x) * (y - q.y) - (x - q.x) * (p.y - q.y) > 0) winding++;
        } else if (p.y <= y && (p.x - q.x) * (y - q.y) - (x - q.x) * (p.y - q.y) < 0) winding--;
      }
    }
  }
  return winding !== 0;
}

/** Fetches the land tile holding the point at zoom z from the service and says whether the point is land there. */
export async function isLand(url: string, lon: number, lat: number, z: number): Promise<boolean> {
  const t = tileOf(lon, lat, z);
  const res = await fetch(`${url}/console/land/${t.z}/${t.x}/${t.y}.pbf`);
  if (res.status === 204) return false;
  if (res.status !== 200) throw new Error(`land tile ${t.z}/${t.x}/${t.y}: HTTP ${res.status}`);
  return landAt(new Uint8Array(await res.arrayBuffer()), t.px, t.py);
}
