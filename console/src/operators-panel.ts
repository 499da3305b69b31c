// Operator administration (docs/console.md "Operators"), for admins only: every operator account with its
// scopes and state; opening one shows a form to change its scopes, disable or enable it and set a new
// password, and the account's audited changes (GET /v1/auth/operators/{id}/changes). Each action says in
// words what it did, including that the operator's sessions ended.
import type { Api } from './api.ts';
import { plainErrors, tooLong, tooShort, type FieldRule } from './field-errors.ts';
import { showPlainErrors } from './show-errors.ts';
import { dateTime } from './time-format.ts';

interface Operator {
  id: string;
  username: string;
  scopes: string[];
  created_at: string;
  disabled_at: string | null;
}
interface Change {
  action: string;
  changed_at: string;
  changed_by: { principal: string; auth_kind: string };
  before: Record<string, unknown>;
  after: Record<string, unknown>;
}

export interface OperatorsPanel {
  refresh(): Promise<void>;
}

/** Every scope an operator can hold, in the order of the API's scope table. */
const SCOPES = [
  'events:read', 'events:write', 'transactions:read', 'transactions:write', 'maritime:read', 'maritime:write',
  'drones:read', 'drones:write', 'webhooks:read', 'webhooks:write', 'system:read', 'system:write', 'admin',
];

const PASSWORD_RULES: FieldRule[] = [
  { path: '/password', say: (m) => (tooShort(m) ? 'The password must be at least 12 characters long.' : tooLong(m) ? 'The password must be at most 1,024 characters long.' : 'Enter a new password.') },
];
const SCOPE_RULES: FieldRule[] = [{ path: '/scopes', say: () => 'Choose at least one scope.' }];

const ACTIONS: Record<string, string> = {
  create: 'created', scopes: 'scopes changed', disable: 'disabled', enable: 'enabled', reset_password: 'password reset',
};

export function createOperatorsPanel(root: HTMLElement, opts: { api: Api; timezone: string }): OperatorsPanel {
  root.innerHTML = `
    <h2 class="panel-title">Operators</h2>
    <p class="meta operators-count" role="status"></p>
    <ul class="operators" aria-label="Operator accounts"></ul>
    <section class="operator" aria-label="Operator" hidden tabindex="-1"></section>`;
  const list = root.querySelector('ul') as HTMLUListElement;
  const count = root.querySelector('.operators-count') as HTMLElement;
  const detail = root.querySelector('.operator') as HTMLElement;
  let operators: Operator[] = [];
  let selected: string | undefined;

  const el = (tag: string, content?: string, className?: string) => {
    const e = document.createElement(tag);
    if (content !== undefined) e.textContent = content;
    if (className) e.className = className;
    return e;
  };
  const state = (o: Operator) => (o.disabled_at ? `disabled since ${dateTime(o.disabled_at, opts.timezone)}` : 'active');

  async function refresh(): Promise<void> {
    const all: Operator[] = [];
    for (let page = 1; page <= 20; page++) {
      const res = await opts.api.get<{ data: Operator[]; pagination?: { total_pages?: number } }>(`/auth/operators?per_page=200&page=${page}`);
      all.push(...res.data);
      if (page >= (res.pagination?.total_pages ?? 1)) break;
    }
    operators = all;
    count.textContent = `${all.length} operator account${all.length === 1 ? '' : 's'}, ${all.filter((o) => o.disabled_at).length} disabled`;
    list.replaceChildren(...all.map((o) => {
      const li = el('li', undefined, `operator-row${o.disabled_at ? ' disabled' : ''}`);
      const open = el('button', undefined, 'link') as HTMLButtonElement;
      open.type = 'button';
      open.append(el('strong', o.username), el('span', ` · ${state(o)}`), el('div', o.scopes.join(' '), 'meta'));
      if (o.id === selected) open.setAttribute('aria-current', 'true');
      open.onclick = () => void show(o.id).catch((err) => say(err instanceof Error ? err.message : String(err)));
      li.append(open);
      return li;
    }));
  }

  function say(text: string): void {
    detail.hidden = false;
    detail.replaceChildren(el('p', text, 'error'));
  }

  async function show(id: string, done?: string): Promise<void> {
    selected = id;
    await refresh();
    const o = operators.find((x) => x.id === id);
    if (!o) return say('This operator account no longer exists.');
    const changes = await opts.api.get<{ data: Change[] }>(`/auth/operators/${encodeURIComponent(id)}/changes?per_page=20`);
    detail.hidden = false;
    detail.innerHTML = `
      <h3></h3>
      <p class="meta operator-state"></p>
      <p class="done" role="status"></p>
      <form class="operator-scopes">
        <fieldset><legend>Scopes</legend><div class="scope-choices"></div></fieldset>
        <p class="field-error" data-error="scopes" hidden></p>
        <p class="error" hidden></p>
        <button type="submit">Save scopes</button>
      </form>
      <form class="operator-password">
        <label>New password <input name="password" type="password" autocomplete="new-password" minlength="12" required></label>
        <p class="field-error" data-error="password" hidden></p>
        <p class="error" hidden></p>
        <button type="submit">Reset password</button>
      </form>
      <p><button type="button" class="operator-toggle"></button></p>
      <h4>Changes</h4>
      <ol class="operator-changes"></ol>`;
    (detail.querySelector('h3') as HTMLElement).textContent = o.username;
    (detail.querySelector('.operator-state') as HTMLElement).textContent = `Account ${state(o)}; created ${dateTime(o.created_at, opts.timezone)}`;
    const status = detail.querySelector('.done') as HTMLElement;
    status.textContent = done ?? '';
    const choices = detail.querySelector('.scope-choices') as HTMLElement;
    for (const s of SCOPES) {
      const label = el('label', undefined, 'inline');
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.name = 'scopes';
      box.value = s;
      box.checked = o.scopes.includes(s);
      label.append(box, ` ${s}`);
      choices.append(label);
    }

    const scopesForm = detail.querySelector('.operator-scopes') as HTMLFormElement;
    scopesForm.onsubmit = (e) => {
      e.preventDefault();
      const scopes = [...scopesForm.querySelectorAll<HTMLInputElement>('input[name=scopes]:checked')].map((b) => b.value);
      void submit(scopesForm, SCOPE_RULES, () => opts.api.send('PATCH', `/auth/operators/${encodeURIComponent(id)}`, { scopes }), `Scopes saved for ${o.username}; their sessions ended, they sign in again to get the new set.`);
    };
    const passwordForm = detail.querySelector('.operator-password') as HTMLFormElement;
    passwordForm.noValidate = true;
    passwordForm.onsubmit = (e) => {
      e.preventDefault();
      const password = (passwordForm.elements.namedItem('password') as HTMLInputElement).value;
      void submit(passwordForm, PASSWORD_RULES, () => opts.api.send('POST', `/auth/operators/${encodeURIComponent(id)}/password`, { password }), `Password reset for ${o.username}; their sessions ended.`);
    };
    const toggle = detail.querySelector('.operator-toggle') as HTMLButtonElement;
    toggle.textContent = o.disabled_at ? 'Enable account' : 'Disable account';
    toggle.onclick = () => {
      const disabled = !o.disabled_at;
      void submit(scopesForm, [], () => opts.api.send('PATCH', `/auth/operators/${encodeURIComponent(id)}`, { disabled }),
        disabled ? `${o.username} is disabled: they cannot sign in and their sessions ended.` : `${o.username} is enabled: they may sign in again.`);
    };

    const log = detail.querySelector('.operator-changes') as HTMLOListElement;
    if (changes.data.length === 0) log.append(el('li', 'No recorded changes.'));
    for (const c of changes.data) {
      const what = c.action === 'scopes' ? `: ${String((c.after.scopes as string[] | undefined)?.join(' ') ?? '')}` : '';
      log.append(el('li', `${dateTime(c.changed_at, opts.timezone)} ${ACTIONS[c.action] ?? c.action}${what}, by ${c.changed_by.principal}`));
    }
  }

  async function submit(form: HTMLFormElement, rules: FieldRule[], send: () => Promise<unknown>, done: string): Promise<void> {
    const general = form.querySelector('p.error') as HTMLElement;
    const fieldErrors = [...form.querySelectorAll<HTMLElement>('[data-error]')];
    general.hidden = true;
    fieldErrors.forEach((p) => (p.hidden = true));
    try {
      await send();
    } catch (err) {
      showPlainErrors(form, fieldErrors, general, plainErrors(err, rules, 'The change was not saved; try again.'));
      return;
    }
    await show(selected as string, done);
    detail.focus();
  }

  return { refresh };
}
