// The incidents queue (docs/console.md "Incidents"): open and acknowledged incidents, most severe first;
// one incident's events, actions, notifications, escalations and drone missions; acknowledge, assign and
// resolve with a reason (PATCH /v1/incidents/{id}), the API's refusal shown next to the form.
import { ApiError, type Api } from './api.ts';
import { portTime } from './config.ts';
import type { IncidentMissions } from './incident-missions.ts';

interface Incident {
  id: string;
  status: string;
  severity: string;
  title: string;
  reason: string;
  zone: string | null;
  event_count: number;
  opened_at: string;
  assigned_to: string;
  escalation_step: number;
  resolution_reason: string | null;
}
interface Detail extends Incident {
  events: { id: string; timestamp: string; type?: string; event_type?: string; title: string; severity: string }[];
  actions?: { action?: string; type?: string; status?: string; at?: string }[];
  notifications?: { channel: string; status: string; at?: string }[];
  escalations?: { party: string; status: string; at?: string }[];
}

export interface IncidentsPanel {
  refresh(): Promise<void>;
}

export function createIncidentsPanel(root: HTMLElement, opts: { api: Api; timezone: string; canWrite: boolean; operator: string; missions?: IncidentMissions | undefined }): IncidentsPanel {
  root.innerHTML = `
    <label class="inline"><input type="checkbox" name="resolved"> show resolved</label>
    <ol class="incidents" aria-label="Incidents, most severe first"></ol>
    <div class="incident" hidden></div>`;
  const list = root.querySelector('ol') as HTMLOListElement;
  const detail = root.querySelector('.incident') as HTMLElement;
  const showResolved = root.querySelector('input[name=resolved]') as HTMLInputElement;
  showResolved.onchange = () => void panel.refresh();
  let selected: string | undefined;
  const text = (tag: string, content: string, className?: string) => {
    const el = document.createElement(tag);
    el.textContent = content;
    if (className) el.className = className;
    return el;
  };

  async function open(id: string): Promise<void> {
    selected = id;
    const { data } = await opts.api.get<{ data: Detail }>(`/incidents/${id}`);
    detail.hidden = false;
    detail.replaceChildren();
    detail.dataset.id = id;
    detail.dataset.status = data.status;
    detail.append(text('h3', `${data.title}`), text('p', `${data.status} · ${data.severity} · ${data.event_count} events · opened ${portTime(data.opened_at, opts.timezone)}${data.assigned_to ? ` · assigned to ${data.assigned_to}` : ''}`, 'meta'), text('p', data.reason, 'meta'));
    if (data.resolution_reason) detail.append(text('p', `Resolved: ${data.resolution_reason}`));
    const events = document.createElement('ul');
    events.setAttribute('aria-label', 'Its events');
    for (const e of data.events) events.append(text('li', `${portTime(e.timestamp, opts.timezone)} ${e.severity} ${e.title}`));
    detail.append(text('h4', 'Events'), events);
    const actions = [
      ...(data.actions ?? []).map((a) => `${a.action ?? a.type ?? 'action'}: ${a.status ?? ''}`),
      ...(data.notifications ?? []).map((n) => `notify ${n.channel}: ${n.status}`),
      ...(data.escalations ?? []).map((e) => `escalate to ${e.party}: ${e.status}`),
    ];
    if (actions.length) {
      const ul = document.createElement('ul');
      for (const a of actions) ul.append(text('li', a));
      detail.append(text('h4', 'Response'), ul);
    }
    if (opts.missions) {
      const missions = document.createElement('section');
      missions.setAttribute('aria-label', 'Drone missions');
      detail.append(missions);
      opts.missions.show(id, missions);
    }
    if (opts.canWrite && data.status !== 'resolved') detail.append(forms(data));
    const close = text('button', 'Close') as HTMLButtonElement;
    close.type = 'button';
    close.onclick = () => {
      detail.hidden = true;
      selected = undefined;
      opts.missions?.hide();
    };
    detail.append(close);
  }

  function forms(data: Detail): HTMLElement {
    const form = document.createElement('form');
    form.className = 'incident-actions';
    form.setAttribute('aria-label', 'Handle the incident');
    form.innerHTML = `
      <div class="row">${data.status === 'open' ? '<button type="button" name="ack">Acknowledge</button>' : ''}</div>
      <label>Assign to <input name="assigned_to" autocomplete="off"></label> <button type="button" name="assign">Assign</button>
      <label>Resolution reason <textarea name="resolution_reason" rows="2"></textarea></label>
      <button type="button" name="resolve">Resolve</button>
      <p class="error" role="alert" hidden></p>`;
    (form.querySelector('input[name=assigned_to]') as HTMLInputElement).value = data.assigned_to || opts.operator;
    const error = form.querySelector('.error') as HTMLElement;
    const act = (body: Record<string, unknown>) => async () => {
      error.hidden = true;
      try {
        await opts.api.send('PATCH', `/incidents/${data.id}`, body);
        await panel.refresh();
        await open(data.id);
      } catch (err) {
        error.hidden = false;
        error.textContent = err instanceof ApiError ? `${err.message}${err.details.length ? ` (${err.details.map((d) => `${d.path ?? ''} ${d.message ?? ''}`.trim()).join('; ')})` : ''}` : 'The change could not be sent; try again.';
      }
    };
    const on = (name: string, body: () => Record<string, unknown>) => {
      const b = form.querySelector(`button[name=${name}]`) as HTMLButtonElement | null;
      if (b) b.onclick = () => void act(body())();
    };
    on('ack', () => ({ status: 'acknowledged' }));
    on('assign', () => ({ assigned_to: (form.querySelector('input[name=assigned_to]') as HTMLInputElement).value.trim() }));
    on('resolve', () => ({ status: 'resolved', resolution_reason: (form.querySelector('textarea') as HTMLTextAreaElement).value.trim() }));
    form.onsubmit = (e) => e.preventDefault();
    return form;
  }

  const panel: IncidentsPanel = {
    async refresh() {
      const status = showResolved.checked ? '' : '&status=open,acknowledged';
      const { data: items } = await opts.api.get<{ data: Incident[] }>(`/incidents?sort=severity&order=desc&per_page=100${status}`);
      list.replaceChildren();
      for (const i of items) {
        const li = document.createElement('li');
        li.className = `incident-row severity-${i.severity}`;
        li.dataset.id = i.id;
        const button = text('button', `${i.severity} · ${i.status}${i.assigned_to ? ` · ${i.assigned_to}` : ''} · ${i.title}`, 'link') as HTMLButtonElement;
        button.type = 'button';
        button.onclick = () => void open(i.id).catch(() => undefined);
        li.append(button);
        list.append(li);
      }
      if (items.length === 0) list.append(text('li', 'No incidents waiting.', 'meta'));
      root.dataset.incidents = String(items.length);
      if (selected && !detail.hidden && !items.some((i) => i.id === selected) && !showResolved.checked) {
        // Resolved meanwhile (here or elsewhere): its detail stays, read again.
        await open(selected).catch(() => undefined);
      }
    },
  };
  return panel;
}
