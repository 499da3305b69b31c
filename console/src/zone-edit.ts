// Editing an existing zone (docs/console.md "Zones"): chosen from the list or picked on the map, its name,
// alert level, buffer, dwell threshold and whether it is active, saved with PATCH /v1/maritime/zones/{id}
// (only the fields changed); each detail of the API's 422 is shown next to the field it names.
import type { GeoJSONSource, LngLatBoundsLike, MapMouseEvent } from 'maplibre-gl';
import { ApiError, type Api } from './api.ts';
import { zoneFeatures, type ZoneGeometry } from './geometry.ts';
import type { LiveMap } from './map.ts';
import { fieldOfPath, formOf, zoneChanges, type EditableZone, type ZoneForm } from './zone-changes.ts';

type StoredZone = EditableZone & { type: string; geometry: ZoneGeometry; updated_at: string };
export interface ZoneEdit {
  /** The zones to choose from (after every load of the map's zones). */
  setZones(zones: { id: string; name: string }[]): void;
}

const SELECTED = 'zone-selected';
// The map's zone layers (console/src/map.ts) a click can pick; those missing are skipped.
const ZONE_LAYERS = ['zone-fill', 'zone-corridor', 'zone-line'];
const FIELDS = ['name', 'alert_level', 'buffer', 'dwell', 'active'] as const;

export function createZoneEdit(root: HTMLElement, opts: { api: Api; map: LiveMap; onSaved: () => Promise<void> }): ZoneEdit {
  const form = document.createElement('form');
  form.className = 'zone-form zone-edit';
  form.setAttribute('aria-label', 'Edit a zone');
  form.noValidate = true;
  const error = (field: string) => `<p class="field-error" id="zone-edit-error-${field}" data-error="${field}" role="alert" hidden></p>`;
  form.innerHTML = `
    <h3>Edit a zone</h3>
    <label>Zone to edit <select name="zone"><option value="">Choose a zone</option></select></label>
    <p class="meta"><button type="button" name="pick" aria-pressed="false">Pick on the map</button> then click inside a zone.</p>
    <fieldset name="fields" hidden><legend>Zone</legend>
      <label>Name <input name="name" autocomplete="off" aria-describedby="zone-edit-error-name"></label>${error('name')}
      <label>Alert level <select name="alert_level" aria-describedby="zone-edit-error-alert_level"><option>info</option><option>low</option><option>medium</option><option>high</option><option>critical</option></select></label>${error('alert_level')}
      <label>Buffer (m, empty for none) <input name="buffer" type="number" min="0" aria-describedby="zone-edit-error-buffer"></label>${error('buffer')}
      <label>Dwell threshold (min, empty for the default) <input name="dwell" type="number" min="0" step="1" aria-describedby="zone-edit-error-dwell"></label>${error('dwell')}
      <label class="inline"><input type="checkbox" name="active" aria-describedby="zone-edit-error-active"> Active (watched)</label>${error('active')}
      <button type="submit">Save changes</button>
    </fieldset>
    ${error('form')}
    <p class="saved meta" role="status"></p>`;
  root.prepend(form);
  const el = <T extends Element>(name: string) => form.elements.namedItem(name) as unknown as T;
  const select = el<HTMLSelectElement>('zone');
  const pick = el<HTMLButtonElement>('pick');
  const fields = el<HTMLFieldSetElement>('fields');
  const status = form.querySelector('.saved') as HTMLElement;
  const map = opts.map.map;
  let zone: StoredZone | undefined;

  if (!map.getSource(SELECTED)) {
    map.addSource(SELECTED, { type: 'geojson', data: { type: 'FeatureCollection', features: [] } });
    map.addLayer({ id: SELECTED, type: 'line', source: SELECTED, paint: { 'line-color': '#111827', 'line-width': 3 } });
  }

  function clearErrors(): void {
    for (const p of form.querySelectorAll<HTMLElement>('[data-error]')) {
      p.hidden = true;
      p.textContent = '';
    }
  }
  function showError(field: string, message: string): void {
    const p = form.querySelector(`[data-error=${field}]`) as HTMLElement;
    p.textContent = p.hidden ? message : `${p.textContent}; ${message}`;
    p.hidden = false;
  }
  function fill(values: ZoneForm): void {
    el<HTMLInputElement>('name').value = values.name;
    el<HTMLSelectElement>('alert_level').value = values.alert_level;
    el<HTMLInputElement>('buffer').value = values.buffer;
    el<HTMLInputElement>('dwell').value = values.dwell;
    el<HTMLInputElement>('active').checked = values.active;
  }
  function read(): ZoneForm {
    return {
      name: el<HTMLInputElement>('name').value,
      alert_level: el<HTMLSelectElement>('alert_level').value,
      buffer: el<HTMLInputElement>('buffer').value,
      dwell: el<HTMLInputElement>('dwell').value,
      active: el<HTMLInputElement>('active').checked,
    };
  }

  /** Reads the zone as stored (the list holds names only), fills the form and outlines the zone. */
  async function choose(id: string, frame: boolean): Promise<void> {
    clearErrors();
    status.textContent = '';
    if (!id) {
      zone = undefined;
      fields.hidden = true;
      (map.getSource(SELECTED) as GeoJSONSource).setData({ type: 'FeatureCollection', features: [] });
      return;
    }
    const { data } = await opts.api.get<{ data: StoredZone }>(`/maritime/zones/${encodeURIComponent(id)}`);
    zone = data;
    select.value = id;
    root.dataset.editing = id;
    fill(formOf(data));
    fields.hidden = false;
    const features = zoneFeatures(data);
    (map.getSource(SELECTED) as GeoJSONSource).setData({ type: 'FeatureCollection', features });
    if (frame) {
      const bounds = boundsOf(features);
      if (bounds) map.fitBounds(bounds, { padding: 60, maxZoom: 14, duration: 0 });
    }
  }
  const chosen = (id: string, frame: boolean) =>
    void choose(id, frame).catch((err: unknown) => showError('form', err instanceof ApiError ? err.message : 'The zone could not be read; try again.'));

  select.onchange = () => chosen(select.value, true);
  pick.onclick = () => {
    const on = pick.getAttribute('aria-pressed') !== 'true';
    pick.setAttribute('aria-pressed', String(on));
    // zone-draw.ts leaves the click to us while this is set.
    if (on) root.dataset.picking = 'true';
    else delete root.dataset.picking;
    map.getCanvas().style.cursor = on ? 'crosshair' : '';
  };
  map.on('click', (e: MapMouseEvent) => {
    if (root.dataset.picking !== 'true') return;
    // Disarmed after this click's other handlers ran, whatever their order (zone-draw.ts checks the flag).
    window.setTimeout(() => pick.getAttribute('aria-pressed') === 'true' && pick.click(), 0);
    const layers = ZONE_LAYERS.filter((l) => map.getLayer(l));
    const id = map.queryRenderedFeatures(e.point, { layers })[0]?.properties?.id as string | undefined;
    if (id) chosen(id, false);
    else status.textContent = 'No zone there: click inside a zone, or choose it from the list.';
    select.focus();
  });

  form.onsubmit = (e) => {
    e.preventDefault();
    if (!zone) return;
    clearErrors();
    const body = zoneChanges(zone, read());
    if (Object.keys(body).length === 0) {
      status.textContent = 'Nothing changed.';
      return;
    }
    const id = zone.id;
    status.textContent = 'Saving ...';
    void opts.api.send<{ data: StoredZone }>('PATCH', `/maritime/zones/${encodeURIComponent(id)}`, body).then(
      async (res) => {
        status.textContent = `Saved zone ${res.data.name}.`;
        root.dataset.edited = `${id}@${res.data.updated_at}`;
        await opts.onSaved();
        await choose(id, false);
        status.textContent = `Saved zone ${res.data.name}.`;
      },
      (err: unknown) => {
        status.textContent = '';
        if (!(err instanceof ApiError)) return showError('form', 'The change could not be sent; try again.');
        if (err.details.length === 0) return showError('form', err.message);
        for (const d of err.details) showError(fieldOfPath(d.path ?? ''), d.message ?? err.message);
        const first = err.details.map((d) => fieldOfPath(d.path ?? '')).find((f) => (FIELDS as readonly string[]).includes(f));
        if (first) el<HTMLElement>(first).focus();
      },
    );
  };

  return {
    setZones(zones) {
      const keep = select.value;
      const options = [...zones].sort((a, b) => a.name.localeCompare(b.name)).map((z) => new Option(z.name, z.id));
      select.replaceChildren(new Option('Choose a zone', ''), ...options);
      select.value = zones.some((z) => z.id === keep) ? keep : '';
      if (select.value !== keep) chosen('', false);
    },
  };
}

function boundsOf(features: GeoJSON.Feature[]): LngLatBoundsLike | undefined {
  let [w, s, e, n] = [Infinity, Infinity, -Infinity, -Infinity];
  const visit = (c: unknown): void => {
    if (Array.isArray(c) && typeof c[0] === 'number') {
      const [lon, lat] = c as [number, number];
      [w, s, e, n] = [Math.min(w, lon), Math.min(s, lat), Math.max(e, lon), Math.max(n, lat)];
    } else if (Array.isArray(c)) c.forEach(visit);
  };
  for (const f of features) visit((f.geometry as { coordinates?: unknown }).coordinates);
  return Number.isFinite(w) ? [w, s, e, n] : undefined;
}
