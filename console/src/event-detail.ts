// One event opened from the events panel (docs/console.md "Events"): every field of the spec's Event, its
// location on the map, links to what it concerns (its incident, the vessel of metadata.mmsi, the gate
// transaction of metadata.transaction_id), and Acknowledge for an event that requires action: PATCH
// /v1/events/{id} with requires_action false, assigned to the operator when nobody holds it yet.
import { ApiError, type Api } from './api.ts';
import { portTime } from './config.ts';
import { acknowledgement } from './event-list.ts';
import type { Message } from './live-socket.ts';

export interface EventLinks {
  showOnMap?: (lng: number, lat: number, severity: string) => void;
  incident?: (id: string) => void;
  vessel?: (mmsi: number) => void;
  transaction?: (id: string) => void;
}

export interface EventDetailOptions {
  api: Api;
  timezone: string;
  canWrite: boolean;
  operator: () => string;
  links: EventLinks;
  /** The event as the API answered after a change. */
  onChanged: (event: Message) => void;
  onClose: () => void;
}

/** Fills `box` with the event; returns the Close button, for the focus. */
export function renderEventDetail(box: HTMLElement, e: Message, opts: EventDetailOptions): HTMLButtonElement {
  box.hidden = false;
  box.innerHTML = '';
  box.dataset.id = e.id;
  const h = document.createElement('h3');
  h.textContent = e.title;
  const dl = document.createElement('dl');
  const row = (term: string, value: unknown) => {
    const dt = document.createElement('dt');
    dt.textContent = term;
    const dd = document.createElement('dd');
    dd.textContent = value === null || value === undefined || value === '' ? '-' : typeof value === 'object' ? JSON.stringify(value) : String(value);
    dl.append(dt, dd);
    return dd;
  };
  row('Time', portTime(e.timestamp, opts.timezone));
  row('Severity', e.severity);
  row('Category', e.category);
  row('Type', e.event_type);
  row('Description', e.description);
  row('Source', `${e.source_module}${e.source_device ? ` / ${e.source_device}` : ''}`);
  const loc = e.location as { lat?: number; lng?: number; zone?: string } | undefined;
  row('Location', typeof loc?.lat === 'number' && typeof loc?.lng === 'number' ? `${loc.lat.toFixed(5)}, ${loc.lng.toFixed(5)}` : undefined);
  row('Zone', loc?.zone);
  row('Requires action', e.requires_action ? 'yes' : 'no').className = e.requires_action ? 'requires-action' : '';
  row('Assigned to', e.assigned_to);
  row('Incident', e.incident_id);
  for (const [key, value] of Object.entries((e.metadata ?? {}) as Record<string, unknown>)) row(key, value);
  row('Event id', e.id);

  const actions = document.createElement('div');
  actions.className = 'event-actions';
  const button = (text: string, onClick: () => void) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = text;
    b.onclick = onClick;
    actions.append(b);
    return b;
  };
  const { links } = opts;
  if (links.showOnMap && typeof loc?.lat === 'number' && typeof loc?.lng === 'number') button('Show on map', () => links.showOnMap?.(loc.lng as number, loc.lat as number, e.severity));
  if (links.incident && e.incident_id) button(`Open incident ${e.incident_id}`, () => links.incident?.(e.incident_id));
  const mmsi = Number(e.metadata?.mmsi);
  if (links.vessel && Number.isInteger(mmsi) && mmsi > 0) button(`Open vessel ${mmsi}`, () => links.vessel?.(mmsi));
  const transaction = e.metadata?.transaction_id;
  if (links.transaction && typeof transaction === 'string' && transaction) button(`Open transaction ${transaction}`, () => links.transaction?.(transaction));
  const error = document.createElement('p');
  error.className = 'error';
  error.setAttribute('role', 'alert');
  error.hidden = true;
  if (opts.canWrite && e.requires_action) {
    const ack = button('Acknowledge', () => {
      ack.disabled = true;
      error.hidden = true;
      opts.api.send<{ data: Message }>('PATCH', `/events/${encodeURIComponent(e.id)}`, acknowledgement(e, opts.operator())).then(
        (res) => opts.onChanged(res.data),
        (err: unknown) => {
          ack.disabled = false;
          error.hidden = false;
          error.textContent = err instanceof ApiError ? err.message : 'The event could not be acknowledged; try again.';
        },
      );
    });
    ack.className = 'primary';
  }
  const close = button('Close', () => opts.onClose());
  box.append(h, dl, actions, error);
  return close;
}
