// The incidents queue (docs/console.md "Incidents"): open and acknowledged incidents, most severe first,
// each row with its severity colour, age, status and assignee. One incident opens beside the list in its own
// pane: acknowledge, assign and resolve at its top (PATCH /v1/incidents/{id}; the API's refusals said
// plainly beside their fields), then one timeline of what happened and what was done
// (incident-timeline.ts), then its drone missions.
import type { Api } from './api.ts';
import { plainErrors, tooLong, type FieldRule } from './field-errors.ts';
import { showPlainErrors } from './show-errors.ts';
import type { IncidentMissions } from './incident-missions.ts';
import { entryText, incidentTimeline, type IncidentRecords } from './incident-timeline.ts';
import { age, dateTime, shortTime } from './time-format.ts';

interface Incident {
  id: string;
  status: string;
  severity: string;
  title: string;
  reason: string;
  zone: string | null;
  gate_id?: string | null;
  container_id?: string | null;
  plate?: string | null;
  mmsi?: number | null;
  event_count: number;
  opened_at: string;
  last_event_at?: string;
  assigned_to: string;
  acknowledged_by?: string | null;
  escalation_step: number;
  resolution_reason: string | null;
}
type Detail = Incident & IncidentRecords;

const ago = (at: string) => {
  const a = age(at);
  return a === 'just now' ? a : `${a} ago`;
};

export interface IncidentsPanel {
  refresh(): Promise<void>;
  /** Opens the incident in the pane (from an event's link). */
  open(id: string): Promise<void>;
}

const PATCH_RULES: FieldRule[] = [
  { path: '/resolution_reason', say: (m) => (tooLong(m) ? 'The reason must be at most 1,000 characters long.' : 'A reason is required to resolve.') },
  { path: '/assigned_to', say: () => 'The name is too long (at most 128 characters).' },
];

export function createIncidentsPanel(root: HTMLElement, opts: { api: Api; timezone: string; canWrite: boolean; operator: string; missions?: IncidentMissions | undefined }): IncidentsPanel {
  root.innerHTML = `
    <label class="inline"><input type="checkbox" name="resolved"> show resolved</label>
    <div class="split">
      <div class="split-list">
        <ol class="incidents" aria-label="Incidents, most severe first"></ol>
      </div>
      <section class="incident split-detail" aria-label="Incident" hidden tabindex="-1"></section>
    </div>`;
  const list = root.querySelector('ol') as HTMLOListElement;
  const detail = root.querySelector('.incident') as HTMLElement;
  const showResolved = root.querySelector('input[name=resolved]') as HTMLInputElement;
  showResolved.onchange = () => void panel.refresh();
  let selected: string | undefined;
  const el = (tag: string, content?: string, className?: string) => {
    const e = document.createElement(tag);
    if (content !== undefined) e.textContent = content;
    if (className) e.className = className;
    return e;
  };

  const subject = (i: Incident) => [i.zone, i.gate_id ? `gate ${i.gate_id}` : '', i.container_id, i.plate, i.mmsi ? `MMSI ${i.mmsi}` : ''].filter(Boolean).join(' · ');

  const metaOf = (data: Detail) =>
    `${data.severity} · ${data.status}${data.assigned_to ? ` · assigned to ${data.assigned_to}` : ' · unassigned'} · opened ${dateTime(data.opened_at, opts.timezone)} (${ago(data.opened_at)}) · ${data.event_count} event${data.event_count === 1 ? '' : 's'}`;

  function timelineOf(data: Detail): HTMLElement {
    const timeline = el('ol', undefined, 'timeline');
    timeline.setAttribute('aria-label', 'What happened and what was done');
    for (const e of incidentTimeline(data)) {
      const li = el('li', undefined, `entry-${e.kind}${e.warn ? ' warn' : ''}${e.kind === 'event' ? ` severity-${e.tag}` : ''}`);
      li.dataset.kind = e.kind;
      const t = el('time', shortTime(e.at, opts.timezone));
      t.setAttribute('datetime', e.at);
      li.append(t, el('span', ` ${entryText(e)}`));
      if (e.count > 1) li.title = `${e.count} times, the last at ${dateTime(e.lastAt, opts.timezone)}`;
      timeline.append(li);
    }
    return timeline;
  }

  /** The open incident read again: its line and timeline replaced in place (a half-typed reason stays), or all of it when its status changed. */
  async function update(id: string): Promise<void> {
    const { data } = await opts.api.get<{ data: Detail }>(`/incidents/${id}`);
    if (selected !== id || detail.hidden) return;
    if (data.status !== detail.dataset.status) return open(id);
    (detail.querySelector('.incident-meta') as HTMLElement).textContent = metaOf(data);
    detail.querySelector('.timeline')?.replaceWith(timelineOf(data));
  }

  async function open(id: string): Promise<void> {
    const first = selected !== id;
    selected = id;
    for (const li of list.querySelectorAll('li[data-id]')) {
      const on = (li as HTMLElement).dataset.id === id;
      li.classList.toggle('selected', on);
      li.querySelector('button')?.setAttribute('aria-current', String(on));
    }
    const { data } = await opts.api.get<{ data: Detail }>(`/incidents/${id}`);
    if (selected !== id) return;
    detail.hidden = false;
    detail.replaceChildren();
    detail.dataset.id = id;
    detail.dataset.status = data.status;
    detail.className = `incident split-detail severity-${data.severity}`;
    const close = el('button', 'Close', 'close') as HTMLButtonElement;
    close.type = 'button';
    close.onclick = () => {
      detail.hidden = true;
      selected = undefined;
      list.querySelector('li.selected')?.classList.remove('selected');
      opts.missions?.hide();
    };
    const head = el('div', undefined, 'detail-head');
    head.append(el('h3', data.title), close);
    detail.append(head);
    detail.append(el('p', metaOf(data), 'meta incident-meta'));
    const about = subject(data);
    if (about) detail.append(el('p', about, 'meta'));
    if (data.resolution_reason) detail.append(el('p', `Resolved: ${data.resolution_reason}`));
    if (opts.canWrite && data.status !== 'resolved') detail.append(forms(data));

    const timeline = timelineOf(data);
    detail.append(el('h4', 'Timeline'), timeline);
    if (opts.missions) {
      const missions = document.createElement('section');
      missions.setAttribute('aria-label', 'Drone missions');
      detail.append(missions);
      opts.missions.show(id, missions);
    }
    if (first) {
      // The pane's top, in view: the detail never opens below the list.
      detail.scrollTop = 0;
      detail.focus({ preventScroll: true });
    }
  }

  function forms(data: Detail): HTMLElement {
    const form = document.createElement('form');
    form.className = 'incident-actions';
    form.setAttribute('aria-label', 'Handle the incident');
    form.noValidate = true;
    form.innerHTML = `
      <div class="row">${data.status === 'open' ? '<button type="button" name="ack">Acknowledge</button>' : '<span class="meta">Acknowledged</span>'}</div>
      <div class="row"><label>Assign to <input name="assigned_to" autocomplete="off" aria-describedby="incident-assign-error"></label> <button type="button" name="assign">Assign</button></div>
      <p class="field-error" id="incident-assign-error" data-error="assigned_to" hidden></p>
      <div class="row"><label>Resolution reason <textarea name="resolution_reason" rows="2" aria-describedby="incident-reason-error"></textarea></label> <button type="button" name="resolve">Resolve</button></div>
      <p class="field-error" id="incident-reason-error" data-error="resolution_reason" hidden></p>
      <p class="error" role="alert" hidden></p>`;
    (form.querySelector('input[name=assigned_to]') as HTMLInputElement).value = data.assigned_to || opts.operator;
    const error = form.querySelector('.error') as HTMLElement;
    const fieldErrors = [...form.querySelectorAll<HTMLElement>('.field-error')];
    const act = (body: Record<string, unknown>) => async () => {
      error.hidden = true;
      for (const p of fieldErrors) p.hidden = true;
      try {
        await opts.api.send('PATCH', `/incidents/${data.id}`, body);
        await open(data.id);
        await panel.refresh();
      } catch (err) {
        showPlainErrors(form, fieldErrors, error, plainErrors(err, PATCH_RULES, 'The change could not be sent; try again.'));
      }
    };
    const on = (name: string, body: () => Record<string, unknown>) => {
      const b = form.querySelector(`button[name=${name}]`) as HTMLButtonElement | null;
      if (b) b.onclick = () => void act(body())();
    };
    on('ack', () => ({ status: 'acknowledged' }));
    on('assign', () => ({ assigned_to: (form.querySelector('input[name=assigned_to]') as HTMLInputElement).value.trim() }));
    // An empty reason is sent as it is: the API's rule, said plainly beside the box, is the one rule.
    on('resolve', () => {
      const reason = (form.querySelector('textarea') as HTMLTextAreaElement).value.trim();
      return { status: 'resolved', ...(reason ? { resolution_reason: reason } : {}) };
    });
    form.onsubmit = (e) => e.preventDefault();
    return form;
  }

  function row(i: Incident): HTMLLIElement {
    const li = document.createElement('li');
    li.className = `incident-row severity-${i.severity}${i.id === selected ? ' selected' : ''}`;
    li.dataset.id = i.id;
    li.dataset.severity = i.severity;
    const button = el('button', undefined, 'link') as HTMLButtonElement;
    button.type = 'button';
    button.setAttribute('aria-current', String(i.id === selected));
    button.append(
      el('span', i.severity, `badge severity-${i.severity}`),
      el('span', i.title, 'title'),
      el('span', `${i.status} · ${i.assigned_to ? i.assigned_to : 'unassigned'} · opened ${ago(i.opened_at)}`, 'meta'),
    );
    button.title = `opened ${dateTime(i.opened_at, opts.timezone)}`;
    button.onclick = () => void open(i.id).catch(() => undefined);
    li.append(button);
    return li;
  }

  const panel: IncidentsPanel = {
    open,
    async refresh() {
      const status = showResolved.checked ? '' : '&status=open,acknowledged';
      const { data: items } = await opts.api.get<{ data: Incident[] }>(`/incidents?sort=severity&order=desc&per_page=100${status}`);
      list.replaceChildren(...items.map(row));
      if (items.length === 0) list.append(el('li', 'No incidents waiting.', 'meta'));
      root.dataset.incidents = String(items.length);
      // The open incident follows what happens to it (resolved meanwhile, here or elsewhere, it stays, read again).
      if (selected && !detail.hidden) await update(selected).catch(() => undefined);
    },
  };
  return panel;
}
