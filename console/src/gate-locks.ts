// The gates' whole-gate locks and their release (docs/console.md "Locks"; issue 34): each gate the response
// loop ever locked, locked by which incident since when, or released by whom; Release asks for a reason
// and sends POST /v1/gates/{gate}/release (transactions:write). Read when the tab is opened and every 10 s
// while it is open: a lock is a rare, grave change, and the incident that made it is on the event stream.
import { ApiError, type Api } from './api.ts';
import { lockLine, type GateLock } from './act-format.ts';

export interface GateLocksView {
  refresh(): Promise<void>;
}

export function createGateLocks(root: HTMLElement, opts: { api: Api; timezone: string; canWrite: boolean; pollMs?: number }): GateLocksView {
  const pollMs = opts.pollMs ?? 10_000;
  root.replaceChildren();
  const h = document.createElement('h2');
  h.textContent = 'Gate locks';
  const status = document.createElement('p');
  status.className = 'locks-status';
  status.setAttribute('role', 'status');
  const list = document.createElement('ul');
  list.className = 'gate-locks';
  root.append(h, status, list);
  /** The gate whose release form is open: a refresh keeps it open (and what was typed). */
  let releasing: string | undefined;
  let timer: number | undefined;

  function render(locks: GateLock[]): void {
    root.dataset.total = String(locks.length);
    status.textContent = locks.length === 0 ? 'No gate has been locked.' : `${locks.filter((l) => l.locked).length} of ${locks.length} gates locked`;
    const open = releasing === undefined ? undefined : list.querySelector<HTMLElement>(`li[data-gate="${CSS.escape(releasing)}"]`);
    list.replaceChildren(...locks.map((lock) => (open && lock.gate_id === releasing && lock.locked ? open : row(lock))));
  }

  function row(lock: GateLock): HTMLElement {
    const li = document.createElement('li');
    li.className = 'gate-lock';
    li.dataset.gate = lock.gate_id;
    li.dataset.state = lock.locked ? 'locked' : 'unlocked';
    const name = document.createElement('strong');
    name.textContent = lock.gate_id;
    const line = document.createElement('span');
    line.className = 'lock-state';
    line.textContent = lockLine(lock, opts.timezone);
    li.append(name, ' ', line);
    if (lock.locked && opts.canWrite) {
      const button = document.createElement('button');
      button.type = 'button';
      button.textContent = 'Release';
      button.setAttribute('aria-label', `Release gate ${lock.gate_id}`);
      button.onclick = () => {
        releasing = lock.gate_id;
        button.replaceWith(releaseForm(lock, li));
      };
      li.append(' ', button);
    }
    return li;
  }

  function releaseForm(lock: GateLock, li: HTMLElement): HTMLFormElement {
    const form = document.createElement('form');
    form.className = 'release-form';
    const label = document.createElement('label');
    label.textContent = `Reason for releasing ${lock.gate_id}`;
    const reason = document.createElement('textarea');
    reason.name = 'reason';
    reason.required = true;
    reason.minLength = 10;
    reason.maxLength = 2000;
    label.append(reason);
    const error = document.createElement('p');
    error.className = 'error';
    error.hidden = true;
    const send = document.createElement('button');
    send.type = 'submit';
    send.textContent = 'Release gate';
    const cancel = document.createElement('button');
    cancel.type = 'button';
    cancel.textContent = 'Cancel';
    cancel.onclick = () => {
      releasing = undefined;
      li.replaceWith(row(lock));
    };
    form.append(label, error, send, cancel);
    form.onsubmit = (e) => {
      e.preventDefault();
      send.disabled = true;
      void opts.api.send('POST', `/gates/${encodeURIComponent(lock.gate_id)}/release`, { reason: reason.value.trim() })
        .then(() => {
          releasing = undefined;
          return view.refresh();
        })
        .catch((err: unknown) => {
          error.hidden = false;
          error.textContent = err instanceof ApiError ? (err.details[0]?.message ? `Reason ${err.details[0].message}` : err.message) : 'The release could not be sent; try again.';
          // Released meanwhile (409): show the gate as it is now.
          if (err instanceof ApiError && err.status === 409) releasing = undefined;
        })
        .finally(() => (send.disabled = false));
    };
    queueMicrotask(() => reason.focus());
    return form;
  }

  function schedule(): void {
    window.clearTimeout(timer);
    timer = window.setTimeout(() => {
      if (!root.hidden) void view.refresh().catch(() => undefined);
      else timer = undefined;
    }, pollMs);
  }

  const view: GateLocksView = {
    async refresh() {
      try {
        render((await opts.api.get<{ data: GateLock[] }>('/gates/locks')).data);
      } catch (err) {
        status.textContent = `Gate locks could not be read: ${err instanceof ApiError ? err.message : 'try again later'}.`;
        throw err;
      } finally {
        if (!root.hidden) schedule();
      }
    },
  };
  // Polled only while the tab is open: opened again, it reads at once.
  new MutationObserver(() => {
    if (!root.hidden) void view.refresh().catch(() => undefined);
  }).observe(root, { attributes: true, attributeFilter: ['hidden'] });
  return view;
}
