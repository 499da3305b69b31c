// The events panel (docs/console.md "Events"): the last HISTORY_HOURS of events from GET /v1/events, then the
// live stream, each event once (kept by id; an update replaces its row), newest first by event time. The
// history is read once the stream has answered `subscribed`: an event stored before that is in the history,
// one published after it comes on the stream, and one in both is shown once. A filter change empties the
// list, sends the stream the new filters and reads the history again on their `subscribed`; events that come
// between (under the old filters) are dropped. A row opens the event (event-detail.ts). New live rows are
// highlighted and circled on the map; an audible alarm sounds for the levels whose behaviour includes
// audio_alarm.
import type { Api } from './api.ts';
import { portTime } from './config.ts';
import { renderEventDetail, type EventLinks } from './event-detail.ts';
import { CATEGORIES, fromApi, HISTORY_HOURS, historyQuery, insertionIndex, matchesZone, MAX_SHOWN, SEVERITIES, streamFilters, type PanelFilters } from './event-list.ts';
import type { Message } from './live-socket.ts';

export interface EventsPanel {
  filters(): Record<string, unknown>;
  take(m: Message): void;
  setState(text: string): void;
}

export interface EventsPanelOptions {
  api: Api;
  timezone: string;
  canWrite: boolean;
  operator: () => string;
  links: EventLinks;
  alarmLevels: () => Set<string>;
  /** A live event seen for the first time (not one of the history). */
  onEvent: (m: Message) => void;
  onFilters: () => void;
}

const HISTORY_PAGES = Math.ceil(MAX_SHOWN / 200);

export function createEventsPanel(root: HTMLElement, opts: EventsPanelOptions): EventsPanel {
  root.innerHTML = `
    <form class="filters" aria-label="Event filters">
      <label>Category <select name="category"><option value="">all</option>${CATEGORIES.map((c) => `<option>${c}</option>`).join('')}</select></label>
      <label>Severity at least <select name="severity"><option value="">low</option>${SEVERITIES.slice(1).map((s) => `<option>${s}</option>`).join('')}</select></label>
      <label>Zone <input name="zone" type="text" placeholder="any" autocomplete="off"></label>
    </form>
    <p class="state" role="status" aria-live="polite"></p>
    <p class="history" aria-live="polite"></p>
    <div class="gap" role="alert" hidden></div>
    <section class="event-detail" aria-label="Event" hidden></section>
    <ol class="events" aria-label="Events, newest first"></ol>`;
  const form = root.querySelector('form') as HTMLFormElement;
  const list = root.querySelector('ol') as HTMLOListElement;
  const state = root.querySelector('.state') as HTMLElement;
  const history = root.querySelector('.history') as HTMLElement;
  const gap = root.querySelector('.gap') as HTMLElement;
  const detail = root.querySelector('.event-detail') as HTMLElement;
  /** Rows by event id, and the events they show. */
  const shown = new Map<string, { li: HTMLLIElement; event: Message }>();
  /** The shown rows' timestamps in list order (newest first), for placing a row. */
  const order: string[] = [];
  /** The history must be read at the stream's next `subscribed` (at start and after a filter change). */
  let historyDue = true;
  /** Events are taken from the stream: false between a filter change and the stream's answer. */
  let accepting = false;
  /** Bumped by each filter change, so a history read for older filters is thrown away. */
  let generation = 0;
  let openId: string | undefined;
  let zoneTimer: number | undefined;

  const panelFilters = (): PanelFilters => {
    const data = new FormData(form);
    const zone = String(data.get('zone') ?? '').trim();
    return { category: String(data.get('category') ?? '') || undefined, minSeverity: String(data.get('severity') ?? '') || undefined, zone: zone || undefined } as PanelFilters;
  };

  function filtersChanged(): void {
    generation++;
    historyDue = true;
    accepting = false;
    for (const { li } of shown.values()) li.remove();
    shown.clear();
    order.length = 0;
    closeDetail();
    gap.hidden = true;
    history.textContent = 'Reading events for the new filters ...';
    root.dataset.events = '0';
    delete root.dataset.history;
    opts.onFilters();
  }
  form.addEventListener('change', (e) => {
    if ((e.target as HTMLElement).tagName !== 'INPUT') filtersChanged();
  });
  form.addEventListener('input', (e) => {
    if ((e.target as HTMLElement).tagName !== 'INPUT') return;
    clearTimeout(zoneTimer);
    zoneTimer = window.setTimeout(filtersChanged, 500);
  });
  form.addEventListener('submit', (e) => e.preventDefault());
  list.addEventListener('click', (e) => {
    const li = (e.target as HTMLElement).closest('li');
    if (li?.dataset.id) open(li.dataset.id);
  });
  list.addEventListener('keydown', (e) => {
    const li = (e.target as HTMLElement).closest('li');
    if (li?.dataset.id && (e.key === 'Enter' || e.key === ' ')) {
      e.preventDefault();
      open(li.dataset.id);
    }
  });
  let audio: AudioContext | undefined;

  function alarm(): void {
    try {
      audio ??= new AudioContext();
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = 880;
      gain.gain.value = 0.2;
      osc.connect(gain).connect(audio.destination);
      osc.start();
      osc.stop(audio.currentTime + 0.6);
      root.dataset.alarms = String(Number(root.dataset.alarms ?? 0) + 1);
    } catch {
      // No audio device (or not yet allowed by the browser): the highlighted row still shows it.
    }
  }

  function fill(li: HTMLLIElement, m: Message, highlight: boolean): void {
    li.className = `event severity-${m.severity}${highlight ? ' new' : ''}${m.requires_action ? ' requires-action' : ''}`;
    li.tabIndex = 0;
    li.dataset.id = m.id;
    li.setAttribute('aria-label', `${m.severity} ${m.title}, ${portTime(m.timestamp, opts.timezone)}${m.requires_action ? ', requires action' : ''}: open`);
    li.innerHTML = '';
    const time = document.createElement('time');
    time.dateTime = m.timestamp;
    time.textContent = portTime(m.timestamp, opts.timezone);
    const title = document.createElement('strong');
    title.textContent = m.title;
    const meta = document.createElement('span');
    meta.className = 'meta';
    meta.textContent = `${m.severity} · ${m.category} · ${m.event_type}${m.location?.zone ? ` · ${m.location.zone}` : ''}`;
    li.append(time, ' ', title, document.createElement('br'), meta);
    if (m.requires_action) {
      const badge = document.createElement('span');
      badge.className = 'badge';
      badge.textContent = 'action';
      li.append(' ', badge);
    }
  }

  /** Shows the event (a new row in time order, or the update of its row); true when it was not shown before. */
  function put(m: Message, live: boolean): boolean {
    const held = shown.get(m.id);
    if (held) {
      held.event = m;
      fill(held.li, m, held.li.classList.contains('new'));
      if (openId === m.id) open(m.id);
      return false;
    }
    const at = insertionIndex(order, m.timestamp);
    // Older than every row of a full list: it would be the first to go.
    if (at >= MAX_SHOWN) return false;
    const li = document.createElement('li');
    fill(li, m, live);
    list.insertBefore(li, list.children[at] ?? null);
    order.splice(at, 0, m.timestamp);
    shown.set(m.id, { li, event: m });
    while (order.length > MAX_SHOWN) {
      const last = list.lastElementChild as HTMLLIElement;
      shown.delete(last.dataset.id as string);
      last.remove();
      order.pop();
    }
    if (live) window.setTimeout(() => li.classList.remove('new'), 10_000);
    root.dataset.events = String(shown.size);
    return true;
  }

  async function readHistory(): Promise<void> {
    const mine = generation;
    const filters = panelFilters();
    const now = Date.now();
    history.textContent = 'Reading the last hours ...';
    let read = 0;
    let total = 0;
    try {
      for (let page = 1; page <= HISTORY_PAGES; page++) {
        const res = await opts.api.get<{ data: Message[]; pagination?: { total_pages?: number; total_items?: number } }>(historyQuery(filters, now, page));
        if (mine !== generation) return;
        const kept = res.data.filter((m) => matchesZone(m, filters.zone));
        for (const m of kept) put(fromApi(m), false);
        read += kept.length;
        // With a zone, the API's count includes events the stream's exact match leaves out.
        total = filters.zone ? read : (res.pagination?.total_items ?? read);
        if (page >= (res.pagination?.total_pages ?? 1)) break;
      }
      const start = portTime(now - HISTORY_HOURS * 3600_000, opts.timezone);
      history.textContent = total > read ? `Since ${start}: the newest ${read} of ${total} events.` : `Since ${start}: ${total} event${total === 1 ? '' : 's'}, then live.`;
      root.dataset.history = 'loaded';
    } catch (err) {
      if (mine !== generation) return;
      history.textContent = `The events before sign-in could not be read (${(err as Error).message}); live events are shown.`;
      root.dataset.history = 'failed';
    }
  }

  function open(id: string): void {
    const held = shown.get(id);
    if (!held) return;
    openId = id;
    for (const { li } of shown.values()) li.removeAttribute('aria-current');
    held.li.setAttribute('aria-current', 'true');
    const close = renderEventDetail(detail, held.event, {
      api: opts.api,
      timezone: opts.timezone,
      canWrite: opts.canWrite,
      operator: opts.operator,
      links: opts.links,
      onChanged: (m) => put(fromApi(m), false),
      onClose: () => {
        closeDetail();
        held.li.focus();
      },
    });
    if (!detail.contains(document.activeElement)) close.focus({ preventScroll: true });
  }

  function closeDetail(): void {
    openId = undefined;
    detail.hidden = true;
    detail.innerHTML = '';
    for (const { li } of shown.values()) li.removeAttribute('aria-current');
  }

  return {
    filters: () => streamFilters(panelFilters()),
    setState(text) {
      state.textContent = text;
    },
    take(m) {
      if (m.type === 'gap') {
        gap.hidden = false;
        gap.textContent = `${m.missed_events} events were missed while disconnected (${portTime(m.start_date, opts.timezone)} to ${portTime(m.end_date, opts.timezone)}); they are in the events list of the API.`;
        return;
      }
      if (m.type === 'subscribed') {
        if (!m.resume) gap.hidden = true;
        accepting = true;
        if (historyDue) {
          historyDue = false;
          void readHistory();
        }
        return;
      }
      if (m.type !== 'event' || !accepting) return;
      if (put(m, true)) {
        if (opts.alarmLevels().has(m.severity)) alarm();
        opts.onEvent(m);
      }
    },
  };
}
