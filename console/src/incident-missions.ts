// Each incident's drone missions in the incident view (docs/console.md "Incidents"): the mission's state and
// ETA, its drone's live position on the map in a layer of its own, kept current while the incident is open.
//
// Polled (every 3 s), not driven by the event stream: the drone's position, remaining distance and ETA move
// with each telemetry record of the fleet (0.5-1 Hz), and telemetry is not an event; the stream carries only
// the six drone events (launched, evidence, completed, aborted, low battery, lost link), so it could not move
// the marker. Two small reads every 3 s for the one incident open is cheap, and a state change shows within
// those 3 s either way.
import type { GeoJSONSource, Map as MlMap } from 'maplibre-gl';
import { ApiError, type Api } from './api.ts';
import { portTime } from './config.ts';
import { missionFeatures, missionLine, type Drone, type Mission } from './mission-format.ts';

const SOURCE = 'incident-drones';
const DRONE_COLOUR = '#0f766e';

export interface IncidentMissions {
  /** Shows the incident's missions in `into`, and keeps them current while `into` stays in the page. */
  show(incidentId: string, into: HTMLElement): void;
  /** Stops following (the incident view was closed) and clears the map's drone layer. */
  hide(): void;
}

export function createIncidentMissions(opts: { api: Api; map: MlMap | undefined; timezone: string; pollMs?: number }): IncidentMissions {
  const pollMs = opts.pollMs ?? 3_000;
  let current: { id: string; into: HTMLElement } | undefined;
  let timer: number | undefined;
  addLayers(opts.map);
  const draw = (data: GeoJSON.FeatureCollection) => (opts.map?.getSource(SOURCE) as GeoJSONSource | undefined)?.setData(data);

  async function load(shown: { id: string; into: HTMLElement }): Promise<void> {
    const [missions, fleet] = await Promise.all([
      opts.api.get<{ data: Mission[] }>(`/drones/missions?incident_id=${encodeURIComponent(shown.id)}&per_page=50`),
      opts.api.get<{ data: Drone[] }>('/drones').catch(() => ({ data: [] as Drone[] })),
    ]);
    if (current !== shown) return;
    const drones = new Map(fleet.data.map((d) => [d.id, d]));
    render(shown.into, missions.data, drones);
    draw(missionFeatures(missions.data, drones));
  }

  function tick(shown: { id: string; into: HTMLElement }): void {
    timer = undefined;
    if (current !== shown) return;
    // The incident view redraws itself after each change: a container no longer in the page is finished.
    if (!shown.into.isConnected) return view.hide();
    void load(shown)
      .catch((err: unknown) => {
        if (err instanceof ApiError && err.status === 403) return view.hide(); // the scope was taken away: say nothing
        shown.into.dataset.error = 'true';
        const p = shown.into.querySelector('.missions-error') ?? shown.into.appendChild(Object.assign(document.createElement('p'), { className: 'error missions-error' }));
        p.textContent = `Drone missions could not be read: ${err instanceof ApiError ? err.message : 'try again later'}.`;
      })
      .finally(() => {
        if (current === shown) timer = window.setTimeout(() => tick(shown), pollMs);
      });
  }

  function render(into: HTMLElement, missions: Mission[], drones: Map<string, Drone>): void {
    delete into.dataset.error;
    into.dataset.missions = String(missions.length);
    const title = document.createElement('h4');
    title.textContent = 'Drone missions';
    const list = document.createElement('ul');
    list.setAttribute('aria-label', 'Drone missions of the incident');
    for (const m of missions) list.append(missionItem(m, m.drone_id ? drones.get(m.drone_id) : undefined));
    if (missions.length === 0) list.append(Object.assign(document.createElement('li'), { className: 'meta', textContent: 'No drone missions.' }));
    into.replaceChildren(title, list);
  }

  function missionItem(m: Mission, drone: Drone | undefined): HTMLLIElement {
    const li = document.createElement('li');
    li.className = 'mission';
    li.dataset.id = m.id;
    li.dataset.status = m.status;
    if (typeof m.eta_seconds === 'number') li.dataset.eta = String(m.eta_seconds);
    if (drone) li.dataset.position = `${drone.position.lon},${drone.position.lat}`;
    li.append(`${missionLine(m, drone)} · since ${portTime(m.created_at, opts.timezone)}`);
    if (drone && opts.map) {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'link';
      button.textContent = 'Show drone';
      button.setAttribute('aria-label', `Show drone ${drone.id} on the map`);
      button.onclick = () => opts.map?.flyTo({ center: [drone.position.lon, drone.position.lat], zoom: Math.max(opts.map.getZoom(), 13) });
      li.append(' ', button);
    }
    return li;
  }

  const view: IncidentMissions = {
    show(incidentId, into) {
      window.clearTimeout(timer);
      into.classList.add('missions');
      into.textContent = 'Loading drone missions ...';
      current = { id: incidentId, into };
      tick(current);
    },
    hide() {
      window.clearTimeout(timer);
      timer = undefined;
      current = undefined;
      draw({ type: 'FeatureCollection', features: [] });
    },
  };
  return view;
}

/** The drones of the open incident, their targets and the line between them: above the vessels. */
function addLayers(map: MlMap | undefined): void {
  if (!map || map.getSource(SOURCE)) return;
  map.addSource(SOURCE, { type: 'geojson', data: { type: 'FeatureCollection', features: [] } });
  map.addLayer({ id: `${SOURCE}-route`, type: 'line', source: SOURCE, filter: ['==', ['get', 'role'], 'route'], paint: { 'line-color': DRONE_COLOUR, 'line-width': 2, 'line-dasharray': [1, 1] } });
  map.addLayer({ id: `${SOURCE}-target`, type: 'circle', source: SOURCE, filter: ['==', ['get', 'role'], 'target'], paint: { 'circle-radius': 9, 'circle-color': 'rgba(0,0,0,0)', 'circle-stroke-width': 2, 'circle-stroke-color': DRONE_COLOUR } });
  map.addLayer({ id: `${SOURCE}-drone`, type: 'circle', source: SOURCE, filter: ['==', ['get', 'role'], 'drone'], paint: { 'circle-radius': 7, 'circle-color': DRONE_COLOUR, 'circle-stroke-width': 2, 'circle-stroke-color': '#ffffff' } });
}
