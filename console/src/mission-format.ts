// How the incident view words a drone mission and draws its drone (docs/console.md "Incidents"). Pure: the
// missions and the fleet in, text and GeoJSON out.

/** A mission as GET /v1/drones/missions lists it (docs/drones.md "API"); only what the view reads. */
export interface Mission {
  id: string;
  kind: string;
  status: string;
  target: { type: 'Point' | 'Polygon'; coordinates: unknown };
  drone_id: string | null;
  created_at: string;
  finished_at?: string | null;
  eta_seconds?: number | null;
  remaining_distance_m?: number | null;
  battery_percent?: number | null;
  reason?: string | null;
}
/** A drone as GET /v1/drones reports it. */
export interface Drone {
  id: string;
  position: { lon: number; lat: number };
  battery_percent: number;
  link: string;
  state: string;
}

/** The states that hold a drone (docs/drones.md "Mission states"): only these are drawn and given an ETA. */
export const ACTIVE_MISSION_STATES = new Set(['requested', 'accepted', 'launched', 'on_station', 'returning']);

/** "4 min 05 s", "40 s"; nothing when the fleet has not said. */
export function etaText(seconds: number | null | undefined): string | undefined {
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) return undefined;
  const s = Math.round(seconds);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}

/** One line of a mission: kind, state, drone, and while it is out the ETA, distance and battery. */
export function missionLine(m: Mission, drone: Drone | undefined): string {
  const parts = [`${m.kind} · ${m.status}`, m.drone_id ? `drone ${m.drone_id}` : 'waiting for a drone'];
  if (ACTIVE_MISSION_STATES.has(m.status)) {
    const eta = etaText(m.eta_seconds);
    if (eta) parts.push(`ETA ${eta}`);
    if (typeof m.remaining_distance_m === 'number') parts.push(`${Math.round(m.remaining_distance_m)} m to go`);
    const battery = m.battery_percent ?? drone?.battery_percent;
    if (typeof battery === 'number') parts.push(`battery ${Math.round(battery)}%`);
    if (drone?.link === 'lost') parts.push('link lost');
  }
  if (m.reason) parts.push(m.reason);
  return parts.join(' · ');
}

/**
 * A target's point, where the drone flies first: the point itself, or the mean of a polygon's outer ring
 * without its closing vertex, as drones/geo.ts `targetPoint` has it (the page's bundle imports no server code).
 */
export function targetPoint(target: Mission['target']): [number, number] | undefined {
  if (target.type === 'Point') return target.coordinates as [number, number];
  const ring = ((target.coordinates as [number, number][][])[0] ?? []).slice(0, -1);
  if (ring.length === 0) return undefined;
  const sum = ring.reduce(([x, y], [lon, lat]) => [x + lon, y + lat], [0, 0]);
  return [sum[0] / ring.length, sum[1] / ring.length];
}

/** The drone of each active mission where it last reported, its target, and the line between them. */
export function missionFeatures(missions: Mission[], drones: Map<string, Drone>): GeoJSON.FeatureCollection {
  const features: GeoJSON.Feature[] = [];
  for (const m of missions) {
    if (!ACTIVE_MISSION_STATES.has(m.status)) continue;
    const target = targetPoint(m.target);
    const drone = m.drone_id ? drones.get(m.drone_id) : undefined;
    const at = drone ? ([drone.position.lon, drone.position.lat] as [number, number]) : undefined;
    const properties = { mission_id: m.id, status: m.status };
    if (target) features.push({ type: 'Feature', properties: { ...properties, role: 'target' }, geometry: { type: 'Point', coordinates: target } });
    if (at) features.push({ type: 'Feature', properties: { ...properties, role: 'drone', drone_id: drone?.id ?? '' }, geometry: { type: 'Point', coordinates: at } });
    if (at && target) features.push({ type: 'Feature', properties: { ...properties, role: 'route' }, geometry: { type: 'LineString', coordinates: [at, target] } });
  }
  return { type: 'FeatureCollection', features };
}
