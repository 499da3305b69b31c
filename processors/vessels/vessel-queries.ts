// Reading vessels for the API: the list with its filters, one vessel with the zones it is in now and its
// recent events, and its track. The API's routes (api/maritime/vessel-routes.ts) call only these.
import type { Pool } from '../../platform/postgres.ts';
import type { SecurityEvent } from '../../schemas/event.ts';
import type { Feature, LineString, Position } from '../../schemas/geojson.ts';
import { decayed } from '../maritime/rules/risk-score.ts';
import { alertStatusOf, visitDwellMs } from '../maritime/rules/vessel-state.ts';
import { loadVesselStates } from '../maritime/store/vessel-state-store.ts';
import { simplifyTrack } from './simplify-track.ts';

export interface VesselFilter {
  page: number;
  per_page: number;
  search?: string;
  category?: string;
  zone?: string;
  /** [min_lon, min_lat, max_lon, max_lat] */
  bbox?: [number, number, number, number];
  seen_since?: string;
}

interface VesselRow {
  mmsi: number;
  name: string | null;
  callsign: string | null;
  imo: number | null;
  ship_type: number | null;
  category: string | null;
  hazardous_category: string | null;
  to_bow: number | null;
  to_stern: number | null;
  to_port: number | null;
  to_starboard: number | null;
  length: number | null;
  beam: number | null;
  draught: number | null;
  destination: string | null;
  eta: Date | null;
  static_reported_at: Date | null;
  lat: number | null;
  lon: number | null;
  last_sog: number | null;
  last_cog: number | null;
  last_heading: number | null;
  last_nav_status: number | null;
  last_report_at: Date | null;
  last_source: string | null;
}

const VESSEL_COLUMNS = `mmsi, name, callsign, imo, ship_type, category, hazardous_category, to_bow, to_stern, to_port, to_starboard,
  length, beam, draught, destination, eta, static_reported_at, ST_Y(last_position::geometry) AS lat, ST_X(last_position::geometry) AS lon,
  last_sog, last_cog, last_heading, last_nav_status, last_report_at, last_source`;

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

function vesselOf(r: VesselRow) {
  return {
    mmsi: r.mmsi,
    name: r.name,
    callsign: r.callsign,
    imo: r.imo,
    ship_type: r.ship_type,
    category: r.category,
    hazardous_category: r.hazardous_category,
    dimensions: { to_bow: r.to_bow, to_stern: r.to_stern, to_port: r.to_port, to_starboard: r.to_starboard, length: r.length, beam: r.beam },
    draught: r.draught,
    destination: r.destination,
    eta: iso(r.eta),
    static_reported_at: iso(r.static_reported_at),
    last_position:
      r.lat === null || r.lon === null || r.last_report_at === null
        ? null
        : { lat: r.lat, lon: r.lon, sog: r.last_sog, cog: r.last_cog, heading: r.last_heading, nav_status: r.last_nav_status, reported_at: r.last_report_at.toISOString(), source: r.last_source ?? '' },
  };
}
export type Vessel = ReturnType<typeof vesselOf>;

/** `prefix` as a LIKE pattern matching values that start with it literally. */
const likePrefix = (prefix: string) => `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** One page of vessels, most recently seen first (never-positioned ones last), then by MMSI. */
export async function listVessels(pool: Pool, f: VesselFilter): Promise<{ vessels: Vessel[]; total: number }> {
  const where: string[] = [];
  const params: unknown[] = [];
  const param = (value: unknown) => `$${params.push(value)}`;
  if (f.search !== undefined) {
    // A name or call sign prefix; digits are also an MMSI or IMO prefix; "IMO 9321483" only an IMO number.
    const imo = /^imo\s*(\d+)$/i.exec(f.search.trim())?.[1];
    const pattern = param(likePrefix((imo ?? f.search).toLowerCase()));
    if (imo) where.push(`imo::text LIKE ${pattern}`);
    else if (/^\d+$/.test(f.search)) where.push(`(mmsi::text LIKE ${pattern} OR imo::text LIKE ${pattern} OR lower(name) LIKE ${pattern})`);
    else where.push(`(lower(name) LIKE ${pattern} OR lower(callsign) LIKE ${pattern})`);
  }
  if (f.category !== undefined) where.push(`category = ${param(f.category)}`);
  if (f.seen_since !== undefined) where.push(`last_report_at >= ${param(f.seen_since)}::timestamptz`);
  if (f.bbox !== undefined) {
    const [minLon, minLat, maxLon, maxLat] = f.bbox.map(param);
    // && on geography uses the GiST index; the geometry test makes the box's edges meridians and parallels.
    where.push(`last_position && ST_MakeEnvelope(${minLon}, ${minLat}, ${maxLon}, ${maxLat}, 4326)::geography
      AND ST_Intersects(last_position::geometry, ST_MakeEnvelope(${minLon}, ${minLat}, ${maxLon}, ${maxLat}, 4326))`);
  }
  if (f.zone !== undefined) {
    const zone = param(f.zone);
    where.push(`mmsi IN (
      SELECT s.mmsi FROM zones AS z JOIN maritime_vessel_state AS s ON s.zone_ids @> ARRAY[z.id]
       WHERE (z.id = ${zone} OR lower(z.name) = lower(${zone}))
         AND EXISTS (SELECT 1 FROM jsonb_array_elements(s.state->'zones') AS p WHERE p->>'zone_id' = z.id AND p->>'presence' = 'inside'))`);
  }
  const whereSql = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const countParams = [...params];
  const { rows } = await pool.query<VesselRow>(
    `SELECT ${VESSEL_COLUMNS} FROM vessels ${whereSql}
      ORDER BY last_report_at DESC NULLS LAST, mmsi LIMIT ${param(f.per_page)} OFFSET ${param((f.page - 1) * f.per_page)}`,
    params,
  );
  const { rows: count } = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM vessels ${whereSql}`, countParams);
  return { vessels: rows.map(vesselOf), total: Number(count[0]?.n ?? 0) };
}

export interface VesselZone {
  zone_id: string;
  zone_name: string;
  zone_type: string;
  entered_at: string;
  dwell_minutes: number;
  alert_status: string;
}

/** One vessel with the zones it is inside now (dwell measured to its newest report, as the dwell endpoint does) and its 10 newest events. */
export async function readVessel(pool: Pool, mmsi: number) {
  const { rows } = await pool.query<VesselRow>(`SELECT ${VESSEL_COLUMNS} FROM vessels WHERE mmsi = $1`, [mmsi]);
  const row = rows[0];
  if (!row) return undefined;
  const state = (await loadVesselStates(pool, [mmsi])).get(mmsi);
  const inside = (state?.zones ?? []).filter((p) => p.presence === 'inside' && p.entered_at !== null);
  const zoneInfo = new Map<string, { name: string; type: string }>();
  if (inside.length > 0) {
    const { rows: zones } = await pool.query<{ id: string; name: string; type: string }>('SELECT id, name, type FROM zones WHERE id = ANY($1::text[])', [inside.map((p) => p.zone_id)]);
    for (const z of zones) zoneInfo.set(z.id, z);
  }
  const zones: VesselZone[] = [];
  for (const p of inside) {
    const zone = zoneInfo.get(p.zone_id);
    if (!zone || p.entered_at === null) continue; // a deleted zone is no longer watched
    zones.push({
      zone_id: p.zone_id,
      zone_name: zone.name,
      zone_type: zone.type,
      entered_at: new Date(p.entered_at).toISOString(),
      dwell_minutes: Math.floor(Math.max(0, visitDwellMs(p, Math.max(state!.last_seen_at, p.entered_at))) / 60_000),
      alert_status: alertStatusOf(p),
    });
  }
  const { rows: events } = await pool.query<{ body: SecurityEvent }>(
    `SELECT c.body FROM security_events AS e JOIN security_events_current AS c ON c.id = e.id
      WHERE e.body->'metadata' ? 'mmsi' AND e.body->'metadata'->>'mmsi' = $1
      ORDER BY e.occurred_at DESC, e.id LIMIT 10`,
    [String(mmsi)],
  );
  // Decayed to the vessel's newest report (event time), as dwell is: a replayed or delayed feed reads the same.
  const risk = state?.rules?.risk;
  const riskScore = risk === undefined ? 0 : Math.round(decayed(risk, Math.max(state!.last_seen_at, risk.at)));
  return { ...vesselOf(row), zones, risk_score: riskScore, recent_events: events.map((e) => e.body) };
}

/** Whether `vessels` has a row for the MMSI. */
export async function vesselKnown(pool: Pool, mmsi: number): Promise<boolean> {
  const { rowCount } = await pool.query('SELECT 1 FROM vessels WHERE mmsi = $1', [mmsi]);
  return (rowCount ?? 0) > 0;
}

export interface TrackProperties {
  mmsi: number;
  start_date: string;
  end_date: string;
  times: string[];
  points: number;
  original_points: number;
  tolerance_meters: number;
}

/** Most points a track request reads; a wider window is refused (the caller narrows it). */
export const MAX_TRACK_POINTS = 100_000;

export class TrackTooLong extends Error {}

/**
 * The vessel's positions in [start, end) as a GeoJSON LineString Feature in time order, one point per
 * report time (when two feeds reported the same instant, the first feed by name), simplified to
 * `toleranceM` when above 0. Fewer than two points: geometry null, the times still listed.
 */
export async function vesselTrack(pool: Pool, mmsi: number, start: Date, end: Date, toleranceM: number): Promise<Feature<LineString, TrackProperties>> {
  const { rows } = await pool.query<{ lat: number; lon: number; at: Date }>(
    `SELECT DISTINCT ON (reported_at) ST_Y(position::geometry) AS lat, ST_X(position::geometry) AS lon, reported_at AS at
       FROM vessel_positions WHERE mmsi = $1 AND reported_at >= $2 AND reported_at < $3
      ORDER BY reported_at, source LIMIT $4`,
    [mmsi, start, end, MAX_TRACK_POINTS + 1],
  );
  if (rows.length > MAX_TRACK_POINTS) throw new TrackTooLong(`The window holds more than ${MAX_TRACK_POINTS} positions; narrow start_date and end_date`);
  const kept = simplifyTrack(rows, toleranceM).map((i) => rows[i]!);
  const coordinates: Position[] = kept.map((r) => [r.lon, r.lat]);
  return {
    type: 'Feature',
    geometry: coordinates.length >= 2 ? { type: 'LineString', coordinates } : null,
    properties: {
      mmsi,
      start_date: start.toISOString(),
      end_date: end.toISOString(),
      times: kept.map((r) => r.at.toISOString()),
      points: kept.length,
      original_points: rows.length,
      tolerance_meters: toleranceM,
    },
  };
}
