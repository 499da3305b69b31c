// Crafted vessel tracks for end-to-end tests: positions in the shape ingest puts on ais.positions.
import type { VesselPosition } from '../../schemas/ais.ts';

/**
 * The feed (`source`) of this test file's crafted reports: its own, because zone processors share each feed's
 * clock through Postgres (issue 33 item 4), and files of one lane share a database: a file whose reports are
 * dated days from another's, on one feed name, made the other's vessels look silent for days (a stay closed
 * as signal lost in processor-crash, in a full run).
 */
export const TRACK_SOURCE = `e2e-track-${Math.random().toString(36).slice(2, 8)}`;

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
    source: TRACK_SOURCE,
    reported_at: at.toISOString(),
    received_at: at.toISOString(),
    raw: ['crafted'],
    lat,
    lon,
    sog,
    cog: 90,
  };
}
