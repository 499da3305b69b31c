// The drone fleet (docs/console.md "Drones"; issue 34): each drone's state, battery and link
// (GET /v1/drones), the latest missions with Abort on the active ones, and a form that starts a mission on
// a point picked on the map or on a vessel (its card's "Send drone here"), POST /v1/drones/missions
// (drones:write). Polled every 3 s only while the tab is open: the fleet moves with its telemetry, which is
// not on the event stream (as for an incident's missions, incident-missions.ts).
import type { Map as MlMap } from 'maplibre-gl';
import { ApiError, type Api } from './api.ts';
import { droneLine } from './act-format.ts';
import { shortTime } from './time-format.ts';
import { ACTIVE_MISSION_STATES, missionLine, type Drone, type Mission } from './mission-format.ts';

/** The mission kinds of POST /v1/drones/missions (docs/drones.md). */
const KINDS = ['inspect', 'track', 'evidence', 'perimeter_sweep'] as const;

/** What a mission is sent to: a point, and the vessel when it came from a vessel card. */
export interface DroneTarget {
  lon: number;
  lat: number;
  mmsi?: number;
  name?: string;
}

export interface DroneFleet {
  refresh(): Promise<void>;
  /** Fills the form with a target (a vessel card's "Send drone here"); the caller shows the tab. */
  target(t: DroneTarget): void;
}

export function createDroneFleet(root: HTMLElement, opts: { api: Api; map: MlMap | undefined; timezone: string; canWrite: boolean; pollMs?: number }): DroneFleet {
  const pollMs = opts.pollMs ?? 3_000;
  root.replaceChildren();
  const section = (title: string) => {
    const h = document.createElement('h2');
    h.textContent = title;
    root.append(h);
  };
  const status = document.createElement('p');
  status.setAttribute('role', 'status');
  status.className = 'fleet-status';
  section('Drone fleet');
  const drones = document.createElement('ul');
  drones.className = 'drone-list';
  root.append(status, drones);
  section('Missions');
  const missions = document.createElement('ul');
  missions.className = 'mission-list';
  root.append(missions);
  let chosen: DroneTarget | undefined;
  const form = opts.canWrite ? missionForm() : undefined;
  let timer: number | undefined;

  function missionForm() {
    section('Send a drone');
    const f = document.createElement('form');
    f.className = 'send-drone';
    const kindLabel = document.createElement('label');
    kindLabel.textContent = 'Mission kind ';
    const kind = document.createElement('select');
    kind.name = 'kind';
    for (const k of KINDS) kind.append(new Option(k.replace('_', ' '), k));
    kindLabel.append(kind);
    const where = document.createElement('p');
    where.className = 'drone-target';
    where.textContent = 'No target yet: pick a point on the map, or use "Send drone here" on a vessel.';
    const pick = document.createElement('button');
    pick.type = 'button';
    pick.textContent = 'Pick a point on the map';
    pick.disabled = opts.map === undefined;
    pick.onclick = () => {
      const map = opts.map as MlMap;
      where.textContent = 'Click the map where the drone should go.';
      map.getCanvas().style.cursor = 'crosshair';
      map.once('click', (e) => {
        map.getCanvas().style.cursor = '';
        fleet.target({ lon: e.lngLat.lng, lat: e.lngLat.lat });
      });
    };
    const send = document.createElement('button');
    send.type = 'submit';
    send.textContent = 'Send drone';
    send.disabled = true;
    const message = document.createElement('p');
    message.className = 'send-result';
    message.setAttribute('role', 'status');
    f.append(kindLabel, where, pick, ' ', send, message);
    root.append(f);
    f.onsubmit = (e) => {
      e.preventDefault();
      if (chosen === undefined) return;
      const t = chosen;
      send.disabled = true;
      message.textContent = 'Sending ...';
      const body = {
        kind: kind.value, target: { type: 'Point', coordinates: [t.lon, t.lat] },
        // A vessel's mission is about the vessel (subject vessel:<mmsi>, as incidents group); a point's is its own.
        ...(t.mmsi === undefined ? {} : { mmsi: t.mmsi }),
      };
      void opts.api.send<{ data: Mission }>('POST', '/drones/missions', body)
        .then((r) => {
          message.textContent = `Mission ${r.data.id} ${r.data.drone_id ? `sent to drone ${r.data.drone_id}` : 'waits for a drone'} (${r.data.status}).`;
          return fleet.refresh();
        })
        .catch((err: unknown) => (message.textContent = `The mission was not started: ${err instanceof ApiError ? err.message : 'try again'}.`))
        .finally(() => (send.disabled = chosen === undefined));
    };
    return { where, send };
  }

  function render(fleetRows: (Drone & { mission_id?: string | null; last_seen?: string })[], recent: Mission[]): void {
    root.dataset.drones = String(fleetRows.length);
    status.textContent = fleetRows.length === 0 ? 'No drone has reported.' : `${fleetRows.filter((d) => d.link !== 'lost').length} of ${fleetRows.length} drones in contact`;
    const byId = new Map(fleetRows.map((d) => [d.id, d]));
    drones.replaceChildren(...fleetRows.map((d) => {
      const li = document.createElement('li');
      li.className = 'drone';
      li.dataset.drone = d.id;
      li.dataset.link = d.link;
      const name = document.createElement('strong');
      name.textContent = d.id;
      const line = document.createElement('span');
      line.className = 'drone-state';
      line.textContent = droneLine(d, opts.timezone);
      li.append(name, ' ', line);
      return li;
    }));
    missions.replaceChildren(...recent.map((m) => {
      const li = document.createElement('li');
      li.className = 'mission';
      li.dataset.mission = m.id;
      li.dataset.status = m.status;
      const line = document.createElement('span');
      line.textContent = `${shortTime(m.created_at, opts.timezone)} ${missionLine(m, m.drone_id ? byId.get(m.drone_id) : undefined)}`;
      li.append(line);
      if (opts.canWrite && ACTIVE_MISSION_STATES.has(m.status)) {
        const abort = document.createElement('button');
        abort.type = 'button';
        abort.textContent = 'Abort';
        abort.setAttribute('aria-label', `Abort mission ${m.id}`);
        abort.onclick = () => {
          abort.disabled = true;
          void opts.api.send('POST', `/drones/missions/${encodeURIComponent(m.id)}/abort`, { reason: 'manual', note: 'aborted from the operator console' })
            .then(() => fleet.refresh())
            .catch((err: unknown) => {
              abort.disabled = false;
              line.textContent += ` · not aborted: ${err instanceof ApiError ? err.message : 'try again'}`;
            });
        };
        li.append(' ', abort);
      }
      return li;
    }));
  }

  function schedule(): void {
    window.clearTimeout(timer);
    timer = window.setTimeout(() => {
      timer = undefined;
      if (!root.hidden) void fleet.refresh().catch(() => undefined);
    }, pollMs);
  }

  const fleet: DroneFleet = {
    async refresh() {
      try {
        const [f, m] = await Promise.all([
          opts.api.get<{ data: (Drone & { mission_id?: string | null; last_seen?: string })[] }>('/drones'),
          opts.api.get<{ data: Mission[] }>('/drones/missions?per_page=10'),
        ]);
        render(f.data, m.data);
      } catch (err) {
        status.textContent = `The fleet could not be read: ${err instanceof ApiError ? err.message : 'try again later'}.`;
        throw err;
      } finally {
        if (!root.hidden) schedule();
      }
    },
    target(t) {
      chosen = t;
      if (!form) return;
      form.where.textContent = `Target: ${t.name ?? (t.mmsi === undefined ? 'point' : `vessel ${t.mmsi}`)} at ${t.lat.toFixed(5)}, ${t.lon.toFixed(5)}`;
      form.where.dataset.lon = String(t.lon);
      form.where.dataset.lat = String(t.lat);
      form.send.disabled = false;
    },
  };
  new MutationObserver(() => {
    if (!root.hidden) void fleet.refresh().catch(() => undefined);
  }).observe(root, { attributes: true, attributeFilter: ['hidden'] });
  return fleet;
}
