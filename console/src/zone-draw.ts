// Drawing zones (docs/console.md "Zones"): a polygon (click its corners, then Finish), a circle (click its
// centre; radius in the form) or a corridor (click its centreline, then Finish; width in the form) on the
// map, saved with POST /v1/maritime/zones; the API's 422 is shown next to the field it names.
import type { GeoJSONSource } from 'maplibre-gl';
import { ApiError, type Api } from './api.ts';
import { circlePolygon, type Position } from './geometry.ts';
import type { LiveMap } from './map.ts';

export function createZoneDraw(root: HTMLElement, opts: { api: Api; map: LiveMap; onSaved: () => Promise<void> }): void {
  root.innerHTML = `
    <form class="zone-form" aria-label="Draw a zone" novalidate>
      <h3>Draw a new zone</h3>
      <fieldset><legend>Shape</legend>
        <label class="inline"><input type="radio" name="shape" value="Polygon" checked> polygon</label>
        <label class="inline"><input type="radio" name="shape" value="Circle"> circle</label>
        <label class="inline"><input type="radio" name="shape" value="Corridor"> corridor</label>
      </fieldset>
      <p class="meta" data-for="geometry">Click the map to place points; <button type="button" name="finish">Finish</button> <button type="button" name="clear">Clear</button></p>
      <p class="field-error" data-error="geometry" role="alert" hidden></p>
      <label>Radius / width (m) <input name="size" type="number" min="1" value="300"></label>
      <p class="field-error" data-error="size" role="alert" hidden></p>
      <label>Name <input name="name" autocomplete="off"></label>
      <p class="field-error" data-error="name" role="alert" hidden></p>
      <label>Type <select name="type"><option>restricted</option><option>exclusion</option><option>monitoring</option><option>anchorage</option></select></label>
      <label>Alert level <select name="alert_level"><option>low</option><option>medium</option><option selected>high</option><option>critical</option><option>info</option></select></label>
      <label>Buffer (m, empty for none) <input name="buffer" type="number" min="0"></label>
      <p class="field-error" data-error="buffer" role="alert" hidden></p>
      <label>Dwell threshold (min, empty for the default) <input name="dwell" type="number" min="0"></label>
      <p class="field-error" data-error="dwell" role="alert" hidden></p>
      <button type="submit">Save zone</button>
      <p class="field-error" data-error="form" role="alert" hidden></p>
      <p class="saved meta" role="status"></p>
    </form>`;
  const form = root.querySelector('form') as HTMLFormElement;
  const map = opts.map.map;
  let points: Position[] = [];
  let finished = false;
  const shape = () => String(new FormData(form).get('shape'));
  const size = () => Number((form.elements.namedItem('size') as HTMLInputElement).value);

  if (!map.getSource('draft')) {
    map.addSource('draft', { type: 'geojson', data: { type: 'FeatureCollection', features: [] } });
    map.addLayer({ id: 'draft-line', type: 'line', source: 'draft', paint: { 'line-color': '#7c3aed', 'line-width': 2 } });
    map.addLayer({ id: 'draft-points', type: 'circle', source: 'draft', filter: ['==', ['geometry-type'], 'Point'], paint: { 'circle-radius': 4, 'circle-color': '#7c3aed' } });
  }
  function geometry(): Record<string, unknown> | undefined {
    if (shape() === 'Circle') return points[0] ? { type: 'Circle', center: points[0], radius_meters: size() } : undefined;
    if (shape() === 'Corridor') return points.length >= 2 ? { type: 'Corridor', centerline: points, width_meters: size() } : undefined;
    return points.length >= 3 ? { type: 'Polygon', coordinates: [[...points, points[0] as Position]] } : undefined;
  }
  function preview(): void {
    const features: GeoJSON.Feature[] = points.map((p) => ({ type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: p } }));
    const ring = shape() === 'Circle' && points[0] ? circlePolygon(points[0], size() || 1) : shape() === 'Polygon' && finished ? [...points, points[0] as Position] : points;
    if (ring.length >= 2) features.push({ type: 'Feature', properties: {}, geometry: { type: 'LineString', coordinates: ring } });
    (map.getSource('draft') as GeoJSONSource).setData({ type: 'FeatureCollection', features });
  }
  map.on('click', (e) => {
    if (root.hidden || (root.closest('[role=tabpanel]') as HTMLElement | null)?.hidden) return;
    if (root.dataset.picking === 'true') return; // the zone editor is picking a zone with this click
    if (shape() === 'Circle') points = [];
    if (finished) {
      points = [];
      finished = false;
    }
    points.push([Number(e.lngLat.lng.toFixed(6)), Number(e.lngLat.lat.toFixed(6))]);
    root.dataset.points = String(points.length);
    preview();
  });
  (form.elements.namedItem('finish') as HTMLButtonElement).onclick = () => {
    finished = true;
    preview();
  };
  (form.elements.namedItem('clear') as HTMLButtonElement).onclick = () => {
    points = [];
    finished = false;
    root.dataset.points = '0';
    preview();
  };
  form.addEventListener('change', () => preview());

  const fieldOf = (path: string): string => {
    if (path.startsWith('/geometry/radius_meters') || path.startsWith('/geometry/width_meters')) return 'size';
    if (path.startsWith('/geometry')) return 'geometry';
    if (path.startsWith('/buffer')) return 'buffer';
    if (path.startsWith('/dwell')) return 'dwell';
    if (path.startsWith('/name')) return 'name';
    return 'form';
  };
  form.onsubmit = (e) => {
    e.preventDefault();
    for (const el of form.querySelectorAll<HTMLElement>('[data-error]')) el.hidden = true;
    const f = new FormData(form);
    const show = (field: string, message: string) => {
      const el = form.querySelector(`[data-error=${field}]`) as HTMLElement;
      el.hidden = false;
      el.textContent = el.textContent && !el.hidden ? `${el.textContent}; ${message}` : message;
    };
    const g = geometry();
    if (!g) return show('geometry', shape() === 'Circle' ? 'Click the map to place the centre.' : `Click at least ${shape() === 'Polygon' ? 3 : 2} points on the map.`);
    const buffer = String(f.get('buffer') ?? '');
    const dwell = String(f.get('dwell') ?? '');
    const body = {
      name: String(f.get('name') ?? '').trim(), type: String(f.get('type')), alert_level: String(f.get('alert_level')), geometry: g,
      ...(buffer ? { buffer: { distance_meters: Number(buffer) } } : {}),
      ...(dwell ? { dwell: { threshold_minutes: Number(dwell) } } : {}),
    };
    for (const el of form.querySelectorAll<HTMLElement>('[data-error]')) el.textContent = '';
    void opts.api.send<{ data: { id: string; name: string } }>('POST', '/maritime/zones', body).then(
      async (res) => {
        (form.querySelector('.saved') as HTMLElement).textContent = `Saved zone ${res.data.name}.`;
        root.dataset.saved = res.data.id;
        points = [];
        finished = false;
        preview();
        await opts.onSaved();
      },
      (err) => {
        if (!(err instanceof ApiError)) return show('form', 'The zone could not be sent; try again.');
        if (err.details.length === 0) return show('form', err.message);
        for (const d of err.details) show(fieldOf(d.path ?? ''), d.message ?? err.message);
      },
    );
  };
}
