// Crafted vessel tracks for end-to-end tests: positions in the shape ingest puts on ais.positions.
import type { VesselPosition } from '../../schemas/ais.ts';

export interface TrackPoint {
  /** Minutes after the track's start. */
  minute: number;
  lon: number;
  lat: number;
}

/** Straight legs between waypoints, one report every `everySeconds`. */
export function track(mmsi: number, start: Date, waypoints: TrackPoint[], everySeconds = 60, sog = 8): VesselPosition[] {
  const out: VesselPosition[] = [];
  for (let i = 0; i + 1 < waypoints.length; i++) {
    const a = waypoints[i]!;
    const b = waypoints[i + 1]!;
    const steps = Math.max(1, Math.round(((b.minute - a.minute) * 60) / everySeconds));
    for (let s = 0; s < steps; s++) {
      const f = s / steps;
      out.push(position(mmsi, new Date(start.getTime() + (a.minute + (b.minute - a.minute) * f) * 60_000), a.lon + (b.lon - a.lon) * f, a.lat + (b.lat - a.lat) * f, sog));
    }
  }
  const last = waypoints[waypoints.length - 1]!;
  out.push(position(mmsi, new Date(start.getTime() + last.minute * 60_000), last.lon, last.lat, sog));
  return out;
}

export function position(mmsi: number, at: Date, lon: number, lat: number, sog = 8): VesselPosition {
  return {
    kind: 'position',
    msg_type: 1,
    mmsi,
    source: 'e2e-track',
    reported_at: at.toISOString(),
    received_at: at.toISOString(),
    raw: ['crafted'],
    lat,
    lon,
    sog,
    cog: 90,
  };
}
