// Gate review (docs/console.md "Gate review"): transactions flagged or held, a transaction's risk factors,
// evidence links and audit trail, and the override form (POST /v1/transactions/{id}/override) with the
// signed-in operator as operator_id; the API's rules (reason of 10 characters, 409 for a transaction no
// longer overridable) are shown as it words them.
import { ApiError, type Api } from './api.ts';
import { portTime } from './config.ts';

interface Transaction {
  id: string;
  gate?: string;
  lane?: string;
  status: string;
  decision?: string;
  risk_score?: number;
  container_id?: string;
  vehicle_plate?: string;
  created_at?: string;
}
interface Detail extends Transaction {
  risk_factors?: { factor?: string; name?: string; score?: number; weight?: number; detail?: string; description?: string }[];
  audit_trail?: { action?: string; event?: string; actor?: string; at?: string; timestamp?: string; reason?: string }[];
  images?: Record<string, string> | { url?: string; type?: string }[];
  [key: string]: unknown;
}

export interface GatePanel {
  refresh(): Promise<void>;
}

export function createGatePanel(root: HTMLElement, opts: { api: Api; timezone: string; canWrite: boolean; operator: () => string }): GatePanel {
  root.innerHTML = `<ol class="transactions" aria-label="Transactions waiting for review"></ol><div class="transaction" hidden></div>`;
  const list = root.querySelector('ol') as HTMLOListElement;
  const detail = root.querySelector('.transaction') as HTMLElement;
  const text = (tag: string, content: string, className?: string) => {
    const el = document.createElement(tag);
    el.textContent = content;
    if (className) el.className = className;
    return el;
  };

  async function open(id: string): Promise<void> {
    const { data } = await opts.api.get<{ data: Detail }>(`/transactions/${id}`);
    detail.hidden = false;
    detail.replaceChildren();
    detail.dataset.id = id;
    detail.dataset.status = data.status;
    detail.append(text('h3', `${data.container_id ?? ''} ${data.vehicle_plate ?? ''}`.trim() || id), text('p', `${data.status}${data.decision ? ` · ${data.decision}` : ''} · risk ${data.risk_score ?? '-'} · gate ${data.gate ?? '-'} lane ${data.lane ?? '-'}${data.created_at ? ` · ${portTime(data.created_at, opts.timezone)}` : ''}`, 'meta'));
    const factors = document.createElement('ul');
    for (const f of data.risk_factors ?? []) factors.append(text('li', `${f.factor ?? f.name ?? 'factor'}: ${f.score ?? f.weight ?? ''} ${f.detail ?? f.description ?? ''}`.trim()));
    detail.append(text('h4', 'Risk factors'), factors);
    const links = evidence(data);
    if (links.length) {
      const ul = document.createElement('ul');
      for (const [k, v] of links) {
        const a = document.createElement('a');
        a.href = v as string;
        a.rel = 'noreferrer';
        a.target = '_blank';
        a.textContent = k;
        const li = document.createElement('li');
        li.append(a);
        ul.append(li);
      }
      detail.append(text('h4', 'Evidence'), ul);
    }
    const trail = document.createElement('ol');
    trail.className = 'audit';
    for (const a of data.audit_trail ?? []) trail.append(text('li', `${portTime(String(a.at ?? a.timestamp ?? ''), opts.timezone)} ${a.action ?? a.event ?? ''}${a.actor ? ` by ${a.actor}` : ''}${a.reason ? `: ${a.reason}` : ''}`));
    detail.append(text('h4', 'Audit trail'), trail);
    if (opts.canWrite && (data.status === 'flagged' || data.status === 'held')) detail.append(overrideForm(data));
  }

  function overrideForm(data: Detail): HTMLElement {
    const form = document.createElement('form');
    form.className = 'override';
    form.setAttribute('aria-label', 'Override the decision');
    form.innerHTML = `
      <label>Decision <select name="decision"><option value="approved">approve</option><option value="rejected">reject</option></select></label>
      <label>Gate action <select name="gate_action"><option value="">default (open when approved, hold when rejected)</option><option value="open">open</option><option value="hold">hold</option><option value="lock">lock</option></select></label>
      <label>Reason (at least 10 characters) <textarea name="reason" rows="2"></textarea></label>
      <label>Notes <input name="notes" autocomplete="off"></label>
      <p class="meta">Operator: <span class="operator"></span></p>
      <button type="submit">Override</button>
      <p class="error" role="alert" hidden></p>`;
    (form.querySelector('.operator') as HTMLElement).textContent = opts.operator();
    const error = form.querySelector('.error') as HTMLElement;
    form.onsubmit = (e) => {
      e.preventDefault();
      const f = new FormData(form);
      const body = {
        decision: String(f.get('decision')), reason: String(f.get('reason') ?? '').trim(), operator_id: opts.operator(),
        ...(String(f.get('notes') ?? '').trim() ? { notes: String(f.get('notes')).trim() } : {}),
        ...(f.get('gate_action') ? { gate_action: String(f.get('gate_action')) } : {}),
      };
      error.hidden = true;
      void opts.api.send('POST', `/transactions/${data.id}/override`, body).then(
        async () => {
          await open(data.id);
          await panel.refresh();
        },
        (err) => {
          error.hidden = false;
          error.textContent = err instanceof ApiError ? `${err.message}${err.details.length ? ` (${err.details.map((d) => `${d.path ?? ''} ${d.message ?? ''}`.trim()).join('; ')})` : ''}` : 'The override could not be sent; try again.';
        },
      );
    };
    return form;
  }

  const panel: GatePanel = {
    async refresh() {
      const since = new Date(Date.now() - 7 * 86_400_000).toISOString();
      const [flagged, held] = await Promise.all(['flagged', 'held'].map((s) => opts.api.get<{ data: Transaction[] }>(`/transactions?status=${s}&sort=risk_score&order=desc&per_page=100&start_date=${encodeURIComponent(since)}`)));
      const items = [...(flagged?.data ?? []), ...(held?.data ?? [])];
      list.replaceChildren();
      for (const t of items) {
        const li = document.createElement('li');
        li.dataset.id = t.id;
        const button = text('button', `${t.status} · risk ${t.risk_score ?? '-'} · ${t.container_id ?? ''} ${t.vehicle_plate ?? ''} · gate ${t.gate ?? '-'}`, 'link') as HTMLButtonElement;
        button.type = 'button';
        button.onclick = () => void open(t.id).catch(() => undefined);
        li.append(button);
        list.append(li);
      }
      if (items.length === 0) list.append(text('li', 'No transactions waiting for review.', 'meta'));
      root.dataset.transactions = String(items.length);
    },
  };
  return panel;
}

/** Every http(s) URL in the detail (plate, container, seal and inspection images), named by where it is. */
function evidence(value: unknown, at = '', out: [string, string][] = [], depth = 0): [string, string][] {
  if (depth > 4 || out.length >= 20) return out;
  if (typeof value === 'string') {
    if (/^https?:\/\//.test(value) && /url$/i.test(at)) out.push([at.replace(/\.?url$/i, '').replace(/[._]/g, ' ').trim() || 'link', value]);
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => evidence(v, `${at} ${i + 1}`, out, depth + 1));
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) evidence(v, at ? `${at}.${k}` : k, out, depth + 1);
  }
  return out;
}
