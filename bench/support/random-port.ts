// A synthetic busy port for benchmarks: seeded random zones of the four geometry types around
// Copenhagen / Øresund, and vessels moving through the area. Same seed, same port.
import { spheroidDestination } from '../../processors/maritime/geometry/sphere.ts';
import type { Position, StoredZone, ZoneGeometry } from '../../schemas/zone.ts';
import { seeded } from '../../test/support/seeded-random.ts';

export const PORT_AREA = { minLat: 55.5, maxLat: 55.8, minLon: 12.4, maxLon: 12.9 };
/** The Øresund and its approaches: the port area and the traffic around it. */
export const TRAFFIC_AREA = { minLat: 55.2, maxLat: 56.1, minLon: 12.0, maxLon: 13.3 };

export class RandomPort {
  readonly random: () => number;

  constructor(seed = 42) {
    this.random = seeded(seed);
  }

  between(a: number, b: number): number {
    return a + this.random() * (b - a);
  }

  somewhere(area = PORT_AREA): Position {
    return [this.between(area.minLon, area.maxLon), this.between(area.minLat, area.maxLat)];
  }

  move(p: Position, azimuth: number, metres: number): Position {
    const [lat, lon] = spheroidDestination(p[1], p[0], azimuth, metres);
    return [lon, lat];
  }

  /** A star-shaped ring (never self-intersecting), counter-clockwise. */
  starRing(centre: Position, radius: number, vertices: number): Position[] {
    const ring: Position[] = [];
    for (let i = 0; i < vertices; i++) ring.push(this.move(centre, -(360 * i) / vertices, radius * this.between(0.5, 1)));
    ring.push(ring[0] as Position);
    return ring;
  }

  geometry(kind: number): ZoneGeometry {
    const centre = this.somewhere();
    switch (kind) {
      case 0: {
        const radius = this.between(150, 1500);
        const rings = [this.starRing(centre, radius, 5 + Math.floor(this.random() * 30))];
        if (this.random() < 0.3) rings.push(this.starRing(centre, radius * 0.2, 4 + Math.floor(this.random() * 5)).reverse());
        return { type: 'Polygon', coordinates: rings };
      }
      case 1: {
        const radius = this.between(100, 600);
        return {
          type: 'MultiPolygon',
          coordinates: [
            [this.starRing(centre, radius, 6 + Math.floor(this.random() * 10))],
            [this.starRing(this.move(centre, this.between(0, 360), radius * 4), radius, 6 + Math.floor(this.random() * 10))],
          ],
        };
      }
      case 2:
        return { type: 'Circle', center: centre, radius_meters: this.between(100, 2000) };
      default: {
        const line: Position[] = [centre];
        let heading = this.between(0, 360);
        for (let i = 0, n = 2 + Math.floor(this.random() * 5); i < n; i++) {
          heading += this.between(-60, 60);
          line.push(this.move(line[line.length - 1] as Position, heading, this.between(300, 3000)));
        }
        return { type: 'Corridor', centerline: line, width_meters: this.between(50, 500) };
      }
    }
  }

  zone(i: number): StoredZone {
    const now = new Date(0).toISOString();
    const distance = this.between(50, 1000);
    return {
      id: `zone-${i}`,
      name: `zone ${i}`,
      type: (['exclusion', 'restricted', 'monitoring', 'anchorage'] as const)[i % 4] ?? 'monitoring',
      alert_level: 'medium',
      active: true,
      geometry: this.geometry(i % 4),
      ...(this.random() < 0.8 ? { buffer: { enabled: true, distance_meters: distance } } : {}),
      created_at: now,
      updated_at: now,
    };
  }

  /**
   * Vessel tracks: each starts somewhere in the area and reports every `everySeconds` at 0-10 m/s with
   * gentle turns. Returns [lat, lon] pairs, vessel-major: vessel v's report r is at index v * reports + r.
   */
  tracks(vessels: number, reports: number, everySeconds = 10, area = PORT_AREA): Float64Array {
    const out = new Float64Array(vessels * reports * 2);
    let k = 0;
    for (let v = 0; v < vessels; v++) {
      let p = this.somewhere(area);
      let heading = this.between(0, 360);
      const speed = this.between(0, 10);
      for (let r = 0; r < reports; r++) {
        out[k++] = p[1];
        out[k++] = p[0];
        heading += this.between(-10, 10);
        p = this.move(p, heading, speed * everySeconds);
      }
    }
    return out;
  }
}
