// Live AIS traffic for end-to-end benchmarks: vessels of the synthetic port (random-port.ts) that move
// in real time, encoded as real NMEA 0183 sentences (the test suite's AIS encoder) that an AIS receiver
// or aggregator would send. Every sentence carries an NMEA 4.0 tag block whose `c:` is the moment it is
// written, in milliseconds: ingest takes it as the report's time, so the `reported_at` of the position
// and the `timestamp` of every event dated to that report name the instant the sentence left the bench.
import { classA, fragments, message, staticVoyage, tagBlock } from '../../test/unit/ingest/ais/nmea-builder.ts';
import type { RandomPort } from './random-port.ts';

/** The first vessel's MMSI (Danish MID 219); vessel v is FIRST_MMSI + v. */
export const FIRST_MMSI = 219_000_000;
const KNOTS_PER_MPS = 3600 / 1852;
const STATION = 's:bench';

export interface Fix {
  lat: number;
  lon: number;
  /** Knots. */
  sog: number;
  /** Degrees, also the heading (no drift, so the heading/COG rule stays quiet unless it should not). */
  course: number;
}

/**
 * Vessels at 0-10 m/s with gentle turns, as `RandomPort.tracks` moves them, but advanced by the wall-clock
 * time since each vessel's previous report: the distance between two reports, the reported speed and
 * the reports' times always agree, whatever rate the benchmark sends at.
 */
export class LiveFleet {
  readonly #lat: Float64Array;
  readonly #lon: Float64Array;
  readonly #heading: Float64Array;
  readonly #speed: Float64Array;
  readonly #lastMs: Float64Array;

  constructor(private readonly port: RandomPort, readonly vessels: number, area: Parameters<RandomPort['somewhere']>[0]) {
    this.#lat = new Float64Array(vessels);
    this.#lon = new Float64Array(vessels);
    this.#heading = new Float64Array(vessels);
    this.#speed = new Float64Array(vessels);
    this.#lastMs = new Float64Array(vessels);
    for (let v = 0; v < vessels; v++) {
      const [lon, lat] = port.somewhere(area);
      this.#lat[v] = lat;
      this.#lon[v] = lon;
      this.#heading[v] = port.between(0, 360);
      this.#speed[v] = port.between(0, 10);
    }
  }

  /** Vessel v's fix at `atMs`, moved on from its previous one (the first fix is where it starts). */
  fixAt(v: number, atMs: number): Fix {
    const last = this.#lastMs[v] as number;
    if (last > 0) {
      const seconds = (atMs - last) / 1000;
      // 1 degree per second at most either way: RandomPort.tracks turns up to 10 degrees per 10 s report.
      const heading = ((this.#heading[v] as number) + this.port.between(-1, 1) * Math.min(seconds, 10) + 360) % 360;
      const [lon, lat] = this.port.move([this.#lon[v] as number, this.#lat[v] as number], heading, (this.#speed[v] as number) * seconds);
      this.#heading[v] = heading;
      this.#lat[v] = lat;
      this.#lon[v] = lon;
    }
    this.#lastMs[v] = atMs;
    return { lat: this.#lat[v] as number, lon: this.#lon[v] as number, sog: (this.#speed[v] as number) * KNOTS_PER_MPS, course: this.#heading[v] as number };
  }
}

/** One tag-blocked `!AIVDM` type 1 sentence: vessel `mmsi` at `fix`, written at `atMs`. */
export function positionSentence(mmsi: number, fix: Fix, atMs: number): string {
  const fields = classA({
    mmsi, status: 0, sog: Math.min(1022, Math.round(fix.sog * 10)), accuracy: 1,
    lon: Math.round(fix.lon * 600_000), lat: Math.round(fix.lat * 600_000),
    cog: Math.round(fix.course * 10) % 3600, heading: Math.round(fix.course) % 360, second: new Date(atMs).getUTCSeconds(),
  });
  return `${tagBlock(`c:${atMs},${STATION}`)}${message(fields)}`;
}

/** Ship types by vessel: a tenth tankers (80, denied in a quarter of the zones), half cargo, passenger, tugs, fishing. */
const SHIP_TYPES = [70, 70, 70, 80, 70, 70, 60, 60, 52, 30];

/** The two tag-blocked sentences of vessel v's type 5 static and voyage report (name, call sign, ship type). */
export function staticSentences(v: number, atMs: number): string[] {
  const fields = staticVoyage({
    mmsi: FIRST_MMSI + v, imo: 9_000_000 + v, callsign: `BN${v}`.slice(0, 7), name: `BENCH VESSEL ${v}`,
    shipType: SHIP_TYPES[v % SHIP_TYPES.length] as number, destination: 'DKCPH',
  });
  return fragments(fields, 2, { sequence: String(v % 10) }).map((s) => `${tagBlock(`c:${atMs},${STATION}`)}${s}`);
}
