// Finding a vessel (docs/console.md "Map"): a box over the map searching the vessel API by name, call sign,
// MMSI or IMO (GET /v1/maritime/vessels?search=, docs/vessels.md); the vessel picked from the results, or
// the only one found, is opened and the map flies to it.
import { ApiError, type Api } from './api.ts';

interface Found {
  mmsi: number;
  name?: string | null;
  callsign?: string | null;
  imo?: number | null;
  last_position?: { lat: number; lon: number } | null;
}

export function createVesselSearch(container: HTMLElement, opts: { api: Api; onFound: (mmsi: number) => void }): HTMLElement {
  const form = document.createElement('form');
  form.className = 'vessel-search';
  form.setAttribute('role', 'search');
  form.innerHTML = `
    <label>Find vessel <input name="q" type="search" placeholder="name, call sign, MMSI or IMO" autocomplete="off" required></label>
    <button type="submit">Find</button>
    <p class="status" role="status" aria-live="polite"></p>
    <ul class="results" aria-label="Vessels found"></ul>`;
  const input = form.querySelector('input') as HTMLInputElement;
  const status = form.querySelector('.status') as HTMLElement;
  const results = form.querySelector('.results') as HTMLUListElement;
  const pick = (v: Found) => {
    results.innerHTML = '';
    status.textContent = `${v.name || 'Unnamed vessel'} (${v.mmsi})`;
    opts.onFound(v.mmsi);
  };
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const q = input.value.trim();
    if (!q) return;
    status.textContent = 'Searching ...';
    results.innerHTML = '';
    opts.api.get<{ data: Found[]; pagination?: { total_items?: number } }>(`/maritime/vessels?per_page=10&search=${encodeURIComponent(q)}`).then(
      (res) => {
        if (res.data.length === 0) return void (status.textContent = `No vessel matches "${q}".`);
        if (res.data.length === 1) return pick(res.data[0] as Found);
        const total = res.pagination?.total_items ?? res.data.length;
        status.textContent = total > res.data.length ? `${total} vessels match; the ${res.data.length} seen most recently:` : `${total} vessels match:`;
        for (const v of res.data) {
          const li = document.createElement('li');
          const b = document.createElement('button');
          b.type = 'button';
          b.textContent = `${v.name || 'Unnamed'} · MMSI ${v.mmsi}${v.imo ? ` · IMO ${v.imo}` : ''}${v.callsign ? ` · ${v.callsign}` : ''}${v.last_position ? '' : ' · no position'}`;
          b.onclick = () => pick(v);
          li.append(b);
          results.append(li);
        }
        (results.querySelector('button') as HTMLButtonElement).focus();
      },
      (err: unknown) => (status.textContent = err instanceof ApiError ? err.message : 'The search failed; try again.'),
    );
  });
  container.append(form);
  return form;
}
