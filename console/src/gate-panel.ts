// Gate review (docs/console.md "Gate review"): the transactions of the last 7 days, what waits for an
// officer (flagged, held) first, in pages, filtered by status, gate and a container/plate search; each row
// the truck and box as the specification names them (container.id, vehicle.plate, the seal) with its gravest
// finding. The detail opens beside the list in its own pane: the seal, the lane, each risk factor with the
// findings behind it, evidence links, the audit trail and the override form
// (POST /v1/transactions/{id}/override), the API's refusals said plainly beside their fields.
import type { Api } from './api.ts';
import { plainErrors, tooLong, tooShort, type FieldRule } from './field-errors.ts';
import { showPlainErrors } from './show-errors.ts';
import { mainFinding, placeText, riskLines, sealText, truckText, type Factor, type TransactionView } from './gate-format.ts';
import { dateTime, shortTime } from './time-format.ts';

interface Detail extends TransactionView {
  completed_at?: string | null;
  risk_factors?: Factor[];
  audit_trail?: { action: string; actor: string; timestamp: string; details?: Record<string, unknown>; rule?: string }[];
  [key: string]: unknown;
}
interface Page {
  data: TransactionView[];
  pagination?: { page: number; total_pages: number; total_items: number };
}

export interface GatePanel {
  refresh(): Promise<void>;
  /** Opens the transaction in the pane (from an event's link). */
  open(id: string): Promise<void>;
}

const PER_PAGE = 25;
const WINDOW_DAYS = 7;
const STATUSES = ['flagged', 'held', 'approved', 'rejected', 'overridden'];

const OVERRIDE_RULES: FieldRule[] = [
  { path: '/reason', say: (m) => (tooShort(m) ? 'The reason must be at least 10 characters long.' : tooLong(m) ? 'The reason must be at most 2,000 characters long.' : 'A reason is required to override.') },
  { path: '/notes', say: () => 'The notes must be at most 4,000 characters long.' },
];

export function createGatePanel(root: HTMLElement, opts: { api: Api; timezone: string; canWrite: boolean; operator: () => string }): GatePanel {
  root.innerHTML = `
    <form class="review-filters filters" aria-label="Filter transactions">
      <label>Status <select name="status">
        <option value="">all, flagged and held first</option>
        ${STATUSES.map((s) => `<option value="${s}">${s}</option>`).join('')}
      </select></label>
      <label>Gate <input name="gate" autocomplete="off" list="gate-names" placeholder="any"></label>
      <label>Container or plate <input name="search" type="search" autocomplete="off" placeholder="e.g. MSCU12, AB 12"></label>
      <datalist id="gate-names"></datalist>
    </form>
    <div class="split">
      <div class="split-list">
        <p class="meta review-count" role="status"></p>
        <ol class="transactions" aria-label="Gate transactions"></ol>
        <nav class="pager" aria-label="Pages of transactions">
          <button type="button" name="previous">Previous</button> <span class="meta page-of"></span> <button type="button" name="next">Next</button>
        </nav>
      </div>
      <section class="transaction split-detail" aria-label="Transaction" hidden tabindex="-1"></section>
    </div>`;
  const filters = root.querySelector('form') as HTMLFormElement;
  const list = root.querySelector('ol') as HTMLOListElement;
  const count = root.querySelector('.review-count') as HTMLElement;
  const pageOf = root.querySelector('.page-of') as HTMLElement;
  const previous = root.querySelector('button[name=previous]') as HTMLButtonElement;
  const next = root.querySelector('button[name=next]') as HTMLButtonElement;
  const gateNames = root.querySelector('datalist') as HTMLDataListElement;
  const detail = root.querySelector('.transaction') as HTMLElement;
  const gatesSeen = new Set<string>();
  let page = 1;
  let selected: string | undefined;
  let generation = 0;

  const el = (tag: string, content?: string, className?: string) => {
    const e = document.createElement(tag);
    if (content !== undefined) e.textContent = content;
    if (className) e.className = className;
    return e;
  };
  const field = (name: string) => (filters.elements.namedItem(name) as HTMLInputElement | HTMLSelectElement).value.trim();

  function query(): string {
    const q = new URLSearchParams({ sort: 'review', order: 'desc', per_page: String(PER_PAGE), page: String(page), start_date: new Date(Date.now() - WINDOW_DAYS * 86_400_000).toISOString() });
    if (field('status')) q.set('status', field('status'));
    if (field('gate')) q.set('gate', field('gate'));
    // The API refuses a search of punctuation alone: nothing to search for is no filter.
    if (/[\p{L}\p{N}]/u.test(field('search'))) q.set('search', field('search'));
    return q.toString();
  }

  let typing: number | undefined;
  const refilter = () => {
    page = 1;
    void panel.refresh().catch(() => undefined);
  };
  filters.onchange = refilter;
  filters.oninput = (e) => {
    if ((e.target as HTMLElement).tagName !== 'INPUT') return;
    clearTimeout(typing);
    typing = window.setTimeout(refilter, 300);
  };
  filters.onsubmit = (e) => {
    e.preventDefault();
    refilter();
  };
  previous.onclick = () => {
    page = Math.max(1, page - 1);
    void panel.refresh().catch(() => undefined);
  };
  next.onclick = () => {
    page += 1;
    void panel.refresh().catch(() => undefined);
  };

  function row(t: TransactionView): HTMLLIElement {
    const li = document.createElement('li');
    li.dataset.id = t.id;
    li.dataset.status = t.status;
    li.className = `transaction-row status-${t.status}${t.id === selected ? ' selected' : ''}`;
    const button = el('button', undefined, 'link') as HTMLButtonElement;
    button.type = 'button';
    button.setAttribute('aria-current', String(t.id === selected));
    const finding = mainFinding(t.inspection?.anomalies);
    button.append(
      el('span', truckText(t), 'truck'),
      el('span', `${t.status} · risk ${t.risk_score} · ${placeText(t)} · ${shortTime(t.created_at, opts.timezone)}`, 'meta'),
      ...(finding ? [el('span', finding, 'finding')] : []),
    );
    button.onclick = () => void open(t.id).catch(() => undefined);
    li.append(button);
    return li;
  }

  async function open(id: string): Promise<void> {
    selected = id;
    for (const li of list.querySelectorAll('li[data-id]')) {
      const on = (li as HTMLElement).dataset.id === id;
      li.classList.toggle('selected', on);
      li.querySelector('button')?.setAttribute('aria-current', String(on));
    }
    const { data } = await opts.api.get<{ data: Detail }>(`/transactions/${id}`);
    show(data);
  }

  function show(data: Detail): void {
    detail.hidden = false;
    detail.replaceChildren();
    detail.dataset.id = data.id;
    detail.dataset.status = data.status;
    const close = el('button', 'Close', 'close') as HTMLButtonElement;
    close.type = 'button';
    close.onclick = () => {
      detail.hidden = true;
      selected = undefined;
      list.querySelector('li.selected')?.classList.remove('selected');
    };
    const facts = document.createElement('dl');
    const fact = (term: string, value: string, className?: string) => {
      const dd = el('dd', value, className);
      facts.append(el('dt', term), dd);
    };
    fact('Container', `${data.container?.id ?? 'no id read'}${data.container?.iso_type ? ` (${data.container.iso_type})` : ''}`);
    fact('Plate', `${data.vehicle?.plate ?? 'no plate read'}${data.vehicle?.carrier ? ` · ${data.vehicle.carrier}` : ''}`);
    fact('Seal', sealText(data), data.inspection?.seal_verified ? undefined : 'warn');
    fact('Where', placeText(data));
    fact('Decision', `${data.status} (${data.decision})${data.operator ? ` by ${data.operator}` : ''}`);
    fact('Risk score', String(data.risk_score));
    fact('Read at', dateTime(data.created_at, opts.timezone));
    detail.append(el('div', undefined, 'detail-head'));
    (detail.firstChild as HTMLElement).append(el('h3', truckText(data)), close);
    detail.append(facts);

    const risk = riskLines(data.risk_factors ?? [], data.inspection?.anomalies ?? []);
    const factors = el('ul', undefined, 'factors');
    factors.setAttribute('aria-label', 'Risk factors');
    for (const f of risk.scored) {
      const li = el('li');
      li.dataset.factor = f.factor;
      li.append(el('strong', `${f.name} +${f.points}`), el('span', ` (${f.score} × ${f.weight})`, 'meta'), ...(f.messages.length ? [el('span', `: ${f.messages.join('; ')}`)] : []));
      factors.append(li);
    }
    for (const m of risk.other) factors.append(el('li', m));
    if (risk.scored.length === 0 && risk.other.length === 0) factors.append(el('li', 'Nothing found.', 'meta'));
    detail.append(el('h4', 'Risk'), factors);
    if (risk.clear.length) detail.append(el('p', `Checked, nothing found: ${risk.clear.join(', ')}.`, 'meta'));

    if (opts.canWrite && (data.status === 'flagged' || data.status === 'held')) detail.append(overrideForm(data));

    const links = evidence(data);
    if (links.length) {
      const ul = el('ul');
      for (const [k, v] of links) {
        const a = el('a', k) as HTMLAnchorElement;
        a.href = v;
        a.rel = 'noreferrer';
        a.target = '_blank';
        const li = el('li');
        li.append(a);
        ul.append(li);
      }
      detail.append(el('h4', 'Evidence'), ul);
    }
    const trail = el('ol', undefined, 'audit');
    for (const a of data.audit_trail ?? []) {
      const reason = typeof a.details?.reason === 'string' ? `: ${a.details.reason}` : '';
      trail.append(el('li', `${shortTime(a.timestamp, opts.timezone)} ${a.action.replace(/_/g, ' ')} by ${a.actor}${reason}`));
    }
    detail.append(el('h4', 'Audit trail'), trail);
    // The pane's top, in view: the detail never opens below the list.
    detail.scrollTop = 0;
    detail.focus({ preventScroll: true });
  }

  function overrideForm(data: Detail): HTMLElement {
    const form = document.createElement('form');
    form.className = 'override';
    form.setAttribute('aria-label', 'Override the decision');
    form.noValidate = true;
    form.innerHTML = `
      <label>Decision <select name="decision"><option value="approved">approve</option><option value="rejected">reject</option></select></label>
      <label>Gate action <select name="gate_action"><option value="">default (open when approved, hold when rejected)</option><option value="open">open</option><option value="hold">hold</option><option value="lock">lock</option></select></label>
      <label>Reason (at least 10 characters) <textarea name="reason" rows="2" aria-describedby="override-reason-error"></textarea></label>
      <p class="field-error" id="override-reason-error" data-error="reason" hidden></p>
      <label>Notes <input name="notes" autocomplete="off" aria-describedby="override-notes-error"></label>
      <p class="field-error" id="override-notes-error" data-error="notes" hidden></p>
      <p class="meta">Operator: <span class="operator"></span></p>
      <button type="submit">Override</button>
      <p class="error" role="alert" hidden></p>`;
    (form.querySelector('.operator') as HTMLElement).textContent = opts.operator();
    const error = form.querySelector('.error') as HTMLElement;
    const fieldErrors = [...form.querySelectorAll<HTMLElement>('.field-error')];
    form.onsubmit = (e) => {
      e.preventDefault();
      const f = new FormData(form);
      const body = {
        decision: String(f.get('decision')), reason: String(f.get('reason') ?? '').trim(), operator_id: opts.operator(),
        ...(String(f.get('notes') ?? '').trim() ? { notes: String(f.get('notes')).trim() } : {}),
        ...(f.get('gate_action') ? { gate_action: String(f.get('gate_action')) } : {}),
      };
      error.hidden = true;
      for (const p of fieldErrors) p.hidden = true;
      void opts.api.send('POST', `/transactions/${data.id}/override`, body).then(
        async () => {
          await open(data.id);
          await panel.refresh();
        },
        (err) => {
          showPlainErrors(form, fieldErrors, error, plainErrors(err, OVERRIDE_RULES, 'The override could not be sent; try again.'));
        },
      );
    };
    return form;
  }

  const panel: GatePanel = {
    open,
    async refresh() {
      const mine = ++generation;
      const res = await opts.api.get<Page>(`/transactions?${query()}`);
      if (mine !== generation) return; // a newer filter's answer is on its way
      const total = res.pagination?.total_items ?? res.data.length;
      const pages = Math.max(1, res.pagination?.total_pages ?? 1);
      if (page > pages && total > 0) {
        page = pages;
        return panel.refresh();
      }
      list.replaceChildren(...res.data.map(row));
      if (res.data.length === 0) list.append(el('li', 'No transactions match.', 'meta'));
      for (const t of res.data) gatesSeen.add(t.gate);
      gateNames.replaceChildren(...[...gatesSeen].sort().map((g) => Object.assign(document.createElement('option'), { value: g })));
      count.textContent = `${total} transaction${total === 1 ? '' : 's'} in the last ${WINDOW_DAYS} days`;
      pageOf.textContent = `page ${page} of ${pages}`;
      previous.disabled = page <= 1;
      next.disabled = page >= pages;
      root.dataset.transactions = String(res.data.length);
      root.dataset.total = String(total);
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
