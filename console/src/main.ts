// The operator console (docs/console.md): sign-in, then the live map, the events panel and vessel details,
// each shown only when the signed-in user's scopes allow it.
import { setWorkerUrl } from 'maplibre-gl';
import { ApiError, createApi, type Api } from './api.ts';
import { AuthError, completeSignIn, refresh, signIn, signOut, storedSession, type Session } from './auth.ts';
import { loadConfig, portTime, zoneName, type ConsoleConfig } from './config.ts';
import { createMapLegend } from './map-legend.ts';
import { createVesselSearch } from './vessel-search.ts';
import { createEventsPanel } from './events-panel.ts';
import { createIncidentsPanel, type IncidentsPanel } from './incidents-panel.ts';
import { createGatePanel, type GatePanel } from './gate-panel.ts';
import { createZoneDraw } from './zone-draw.ts';
import { createZoneEdit } from './zone-edit.ts';
import { createIncidentMissions } from './incident-missions.ts';
import { createGateLocks } from './gate-locks.ts';
import { createDroneFleet, type DroneFleet } from './drone-fleet.ts';
import { addOperatorsTab } from './operators-tab.ts';
import { LiveSocket, type Message } from './live-socket.ts';
import { createMap, type LiveMap } from './map.ts';

const $ = <T extends HTMLElement>(selector: string) => document.querySelector(selector) as T;

/** Whatever went wrong, the operator reads a sentence, never a stack trace. */
function showError(err: unknown): void {
  const box = $('#message');
  box.hidden = false;
  box.textContent = err instanceof ApiError || err instanceof AuthError ? err.message : 'Something went wrong in the console; reload the page. If it persists, tell the administrator.';
  if (!(err instanceof ApiError || err instanceof AuthError)) console.error(err);
}
window.addEventListener('error', (e) => showError(e.error));
window.addEventListener('unhandledrejection', (e) => showError(e.reason));

async function main(): Promise<void> {
  setWorkerUrl(new URL('maplibre-gl-worker.mjs', location.href.replace(/[^/]*$/, '')).href);
  performance.mark('console:script');
  const config = await loadConfig();
  let session: Session | undefined;
  try {
    session = (await completeSignIn(config)) ?? storedSession();
  } catch (err) {
    showError(err);
  }
  if (!session) return showSignIn(config);
  await start(config, session);
}

function showSignIn(config: ConsoleConfig): void {
  $('#signin').hidden = false;
  $('#app').hidden = true;
  const button = $<HTMLButtonElement>('#signin button');
  button.onclick = () => void signIn(config);
  button.focus();
}

/** The Drones tab, when the operator may see it: a vessel card sends its vessel to it. */
let fleet: DroneFleet | undefined;

async function start(config: ConsoleConfig, first: Session): Promise<void> {
  let session = first;
  let refreshing: Promise<Session> | undefined;
  const expired = (message: string) => {
    signOut();
    sockets.forEach((s) => s.stop());
    showError(new AuthError(message));
    showSignIn(config);
  };
  /** The access token, refreshed a minute before it expires; a refused refresh ends the session. */
  const token = async (): Promise<string> => {
    if (session.expiresAt - Date.now() > 60_000) return session.accessToken;
    refreshing ??= refresh(config, session).finally(() => (refreshing = undefined));
    try {
      session = await refreshing;
    } catch (err) {
      expired((err as Error).message);
      throw err;
    }
    return session.accessToken;
  };
  window.setInterval(() => void token().catch(() => undefined), 30_000);
  // The API is the origin that served the page (config.api_url names the public one, which a proxy may front).
  const origin = location.origin;
  const api = createApi(origin, token, () => expired('Your session has ended; sign in again.'));
  const can = (scope: string) => session.scopes.includes(scope) || session.scopes.includes('admin');
  const sockets: LiveSocket[] = [];

  $('#signin').hidden = true;
  $('#app').hidden = false;
  $('#scopes').textContent = session.scopes.join(' ');
  showSiteClock(config.timezone);
  // Operator administration: an Operators tab for admins only (no tab, no request for anyone else).
  if (session.scopes.includes('admin')) addOperatorsTab({ api, timezone: config.timezone, showError });
  $<HTMLButtonElement>('#signout').onclick = () => {
    signOut();
    location.replace(location.pathname);
  };
  const ws = origin.replace(/^http/, 'ws');

  let map: LiveMap | undefined;
  if (can('maritime:read')) {
    // The map's style, the zones and the position stream load side by side: each is a round trip or more.
    const ready = new Promise<void>((resolve) => (map = createMap($('#map'), config.tile_url, resolve)));
    const live = map as unknown as LiveMap;
    const zones = allPages<Zone>(api, '/maritime/zones?per_page=200');
    zones.catch(() => undefined);
    // For troubleshooting from the browser's console, and for the browser tests: what the map holds.
    (window as unknown as { pssMap: LiveMap }).pssMap = live;
    // The stream is asked for the box in view; an unchanged box (the first view's own moveend) is not sent again.
    let sentBox = '';
    const positions = new LiveSocket({
      url: `${ws}/v1/positions/stream`,
      token,
      filters: () => {
        const bbox = live.bounds();
        sentBox = JSON.stringify(bbox);
        return { bbox };
      },
      onMessage: (m) => {
        if (m.type === 'positions') live.applyPositions(m.positions, m.left, m.snapshot === true);
      },
      onState: (state, detail) => ($('#positions-state').textContent = `Vessels: ${state}${detail ? ` (${detail})` : ''}`),
    });
    let moveTimer: number | undefined;
    live.map.on('moveend', () => {
      clearTimeout(moveTimer);
      moveTimer = window.setTimeout(() => {
        if (JSON.stringify(live.bounds()) !== sentBox) positions.updateFilters();
      }, 300);
    });
    createMapLegend($('#map'));
    createVesselSearch($('#map'), { api, onFound: (mmsi) => void showVessel(api, live, config, mmsi, true).catch(showError) });
    // The first view frames the site's zones: the stream is asked for that box, not the default view's.
    void zones.then((all) => live.fitZones(all), () => undefined).finally(() => positions.start());
    sockets.push(positions);
    await ready;
    performance.mark('console:map-loaded');
    live.onVesselClick((mmsi) => void showVessel(api, live, config, mmsi).catch(showError));
    live.setZones(await zones);
    performance.mark('console:zones');
    void loadCategories(api, live);
    if (can('maritime:write')) {
      const reload = async () => {
        const all = await allPages<Zone>(api, '/maritime/zones?per_page=200');
        live.setZones(all);
        edit.setZones(all);
      };
      createZoneDraw($('#zones'), { api, map: live, onSaved: reload });
      const edit = createZoneEdit($('#zones'), { api, map: live, onSaved: reload });
      edit.setZones(await zones);
    } else $('#zones').textContent = 'Your account may not change zones (maritime:write).';
  } else {
    $('#map').textContent = 'Your account may not read maritime data (maritime:read): the map is not shown.';
  }

  setupTabs();
  let incidents: IncidentsPanel | undefined;
  if (can('events:read')) {
    // Drone missions only with drones:read; without it the section is left out, no request, no error.
    const missions = can('drones:read') ? createIncidentMissions({ api, map: map?.map, timezone: config.timezone }) : undefined;
    incidents = createIncidentsPanel($('#incidents'), { api, timezone: config.timezone, canWrite: can('events:write'), operator: '', missions });
    const panel = incidents;
    void panel.refresh().catch(showError);
    window.setInterval(() => void panel.refresh().catch(() => undefined), 15_000);
  } else {
    $('#incidents').textContent = 'Your account may not read incidents (events:read).';
  }

  // Who is signed in: operator fields (the gate override's operator_id) are filled with it.
  let operator = '';
  void api.get<{ data: { subject?: string } }>('/auth/introspect').then((r) => (operator = r.data.subject ?? ''), () => undefined);
  let gate: GatePanel | undefined;
  if (can('transactions:read')) {
    gate = createGatePanel($('#gate'), { api, timezone: config.timezone, canWrite: can('transactions:write'), operator: () => operator });
    const panel = gate;
    void panel.refresh().catch(showError);
    window.setInterval(() => void panel.refresh().catch(() => undefined), 15_000);
  } else {
    $('#gate').textContent = 'Your account may not read gate transactions (transactions:read).';
  }
  if (can('transactions:read')) createGateLocks($('#locks'), { api, timezone: config.timezone, canWrite: can('transactions:write') });
  else $('#locks').textContent = 'Your account may not read gate locks (transactions:read).';
  // Read only while its tab is open (drone-fleet.ts); a vessel card offers "Send drone here" with drones:write.
  if (can('drones:read')) fleet = createDroneFleet($('#drones'), { api, map: map?.map, timezone: config.timezone, canWrite: can('drones:write') });
  else $('#drones').textContent = 'Your account may not read the drone fleet (drones:read).';

  if (can('events:read')) {
    let alarmLevels = new Set(['critical']);
    if (can('system:read')) {
      const system = await api.get<{ data: { alert_levels?: Record<string, { notify: string[] }> } }>('/system/config').catch(() => undefined);
      const levels = system?.data.alert_levels;
      if (levels) alarmLevels = new Set(Object.entries(levels).filter(([, b]) => b.notify.includes('audio_alarm')).map(([level]) => level));
    }
    const panel = createEventsPanel($('#events'), {
      api,
      timezone: config.timezone,
      canWrite: can('events:write'),
      operator: () => operator,
      alarmLevels: () => alarmLevels,
      links: {
        ...(map ? { showOnMap: (lng: number, lat: number, severity: string) => map?.flyToPoint(lng, lat, severity) } : {}),
        ...(map ? { vessel: (mmsi: number) => void showVessel(api, map as LiveMap, config, mmsi, true).catch(showError) } : {}),
        ...(incidents ? { incident: (id: string) => { selectTab('incidents'); void incidents?.open(id).catch(showError); } } : {}),
        ...(gate ? { transaction: (id: string) => { selectTab('gate'); void gate?.open(id).catch(showError); } } : {}),
      },
      onEvent: (m: Message) => {
        if (String(m.event_type).startsWith('incident_')) void incidents?.refresh().catch(() => undefined);
        if (map && typeof m.location?.lat === 'number' && typeof m.location?.lng === 'number') map.flashEvent(m.location.lng, m.location.lat, m.severity);
      },
      onFilters: () => events.updateFilters(),
    });
    const events = new LiveSocket({
      url: `${ws}/v1/events/stream`,
      token,
      filters: () => panel.filters(),
      onMessage: (m) => panel.take(m),
      onState: (state, detail) => panel.setState(`Events: ${state}${detail ? ` (${detail})` : ''}`),
    });
    events.start();
    sockets.push(events);
    // For operators and tests: drop both streams as a network failure would; they resume by themselves.
    (window as unknown as { pssDropStreams: () => void }).pssDropStreams = () => sockets.forEach((s) => s.drop());
  } else {
    $('#events').textContent = 'Your account may not read events (events:read).';
  }
}

/** Shows a tab of the side panel by its panel's id (events, incidents, gate, zones). */
function selectTab(panel: string): void {
  document.querySelector<HTMLButtonElement>(`[role=tab][aria-controls=${panel}]`)?.click();
}

/**
 * The side panel's tabs: arrow keys move between them, as WAI-ARIA's tabs pattern says, and every tab is in
 * the Tab order as well, so Tab and Enter alone reach each panel (issue 34 item 8, docs/console.md "Keyboard").
 */
function setupTabs(): void {
  const tabs = [...document.querySelectorAll<HTMLButtonElement>('[role=tab]')];
  const select = (tab: HTMLButtonElement) => {
    for (const t of tabs) {
      const on = t === tab;
      t.setAttribute('aria-selected', String(on));
      ($(`#${t.getAttribute('aria-controls')}`) as HTMLElement).hidden = !on;
    }
  };
  tabs.forEach((tab, i) => {
    tab.onclick = () => select(tab);
    tab.onkeydown = (e) => {
      if (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft') return;
      const next = tabs[(i + (e.key === 'ArrowRight' ? 1 : tabs.length - 1)) % tabs.length] as HTMLButtonElement;
      select(next);
      next.focus();
    };
  });
}

type Zone = Parameters<LiveMap['setZones']>[0][number];

async function allPages<T>(api: Api, path: string): Promise<T[]> {
  const out: T[] = [];
  for (let page = 1; page <= 50; page++) {
    const res = await api.get<{ data: T[]; pagination?: { total_pages?: number } }>(`${path}&page=${page}`);
    out.push(...res.data);
    if (page >= (res.pagination?.total_pages ?? 1)) break;
  }
  return out;
}

/** Names and categories of the most recently seen vessels, for the map's colours. */
async function loadCategories(api: Api, map: LiveMap): Promise<void> {
  const since = new Date(Date.now() - 24 * 3600_000).toISOString();
  for (let page = 1; page <= 10; page++) {
    const res = await api.get<{ data: { mmsi: number; name?: string; ship_category?: string; category?: string }[]; pagination?: { total_pages?: number } }>(`/maritime/vessels?per_page=200&page=${page}&seen_since=${encodeURIComponent(since)}`).catch(() => undefined);
    if (!res) return;
    for (const v of res.data) map.setCategory(v.mmsi, v.ship_category ?? v.category, v.name);
    if (page >= (res.pagination?.total_pages ?? 1)) return;
  }
}

interface VesselDetail {
  mmsi: number;
  name?: string | null;
  ship_category?: string | null;
  category?: string | null;
  last_position?: { lat: number; lon: number; sog?: number; cog?: number; heading?: number; reported_at: string } | null;
  zones?: { zone_id: string; zone_name?: string; name?: string; entered_at: string; dwell_minutes: number; alert_status: string }[];
  risk_score?: number;
}

/** The site's time and zone in the header, so every time on the page is read in it. */
function showSiteClock(timezone: string): void {
  const clock = document.createElement('span');
  clock.id = 'site-time';
  clock.title = `Times on this page are in ${timezone}`;
  document.querySelector('header h1')?.after(clock);
  const tick = () => (clock.textContent = `Site time ${portTime(Date.now(), timezone).slice(11)} · ${timezone} (${zoneName(timezone)})`);
  tick();
  window.setInterval(tick, 1000);
}

async function showVessel(api: Api, map: LiveMap, config: ConsoleConfig, mmsi: number, fly = false): Promise<void> {
  const panel = $('#vessel');
  panel.hidden = false;
  panel.textContent = 'Loading vessel ...';
  const [{ data: v }, track] = await Promise.all([
    api.get<{ data: VesselDetail }>(`/maritime/vessels/${mmsi}`),
    api.get<{ data: GeoJSON.Feature }>(`/maritime/vessels/${mmsi}/track?tolerance_meters=5`).catch(() => undefined),
  ]);
  map.showTrack(track?.data ?? null);
  const p = v.last_position;
  // Found by a search or from an event: the map flies to it (where it is now on the stream, else its last report).
  const now = map.vessel(mmsi);
  if (fly && (now || p)) map.flyToPoint(now?.lon ?? (p as { lon: number }).lon, now?.lat ?? (p as { lat: number }).lat);
  panel.innerHTML = '';
  const h = document.createElement('h2');
  h.textContent = `${v.name || 'Unnamed vessel'} (${v.mmsi})`;
  const dl = document.createElement('dl');
  const row = (term: string, value: string) => {
    const dt = document.createElement('dt');
    dt.textContent = term;
    const dd = document.createElement('dd');
    dd.textContent = value;
    dl.append(dt, dd);
  };
  row('Category', v.ship_category ?? v.category ?? 'unknown');
  if (p) {
    row('Position', `${p.lat.toFixed(5)}, ${p.lon.toFixed(5)}`);
    row('Speed / course', `${p.sog ?? '-'} kn / ${p.cog ?? '-'}°`);
    row('Reported', portTime(p.reported_at, config.timezone));
  }
  row('Risk score', String(v.risk_score ?? 0));
  for (const z of v.zones ?? []) row(`In zone ${z.zone_name ?? z.name ?? z.zone_id}`, `${Math.round(z.dwell_minutes)} min since ${portTime(z.entered_at, config.timezone)} (${z.alert_status})`);
  row('Track (24 h)', track?.data.geometry ? `${(track.data.geometry as GeoJSON.LineString).coordinates.length} points` : 'fewer than two positions');
  const close = document.createElement('button');
  close.type = 'button';
  close.textContent = 'Close';
  close.onclick = () => {
    panel.hidden = true;
    map.showTrack(null);
  };
  panel.append(h, dl, close);
  const at = now ?? (p ? { lon: p.lon, lat: p.lat } : undefined);
  const drones = fleet;
  // Only where the form is (drones:write).
  if (drones && at && document.querySelector('#drones form.send-drone') !== null) {
    const send = document.createElement('button');
    send.type = 'button';
    send.textContent = 'Send drone here';
    send.onclick = () => {
      drones.target({ lon: at.lon, lat: at.lat, mmsi: v.mmsi, name: v.name || `vessel ${v.mmsi}` });
      selectTab('drones');
    };
    panel.append(' ', send);
  }
  close.focus();
}

void main().catch(showError);
