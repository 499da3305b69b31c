// The live events panel (docs/console.md "Events"): the event stream with the panel's filters, each event
// once (kept by id; an update replaces it), new ones highlighted on the map, the gap message shown as it
// comes, and an audible alarm for the levels whose behaviour includes audio_alarm.
import { portTime } from './config.ts';
import type { Message } from './live-socket.ts';

export interface EventsPanel {
  filters(): Record<string, unknown>;
  take(m: Message): void;
  setState(text: string): void;
}

const SEVERITIES = ['low', 'medium', 'high', 'critical'];
const CATEGORIES = ['gate', 'perimeter', 'maritime', 'drone', 'system', 'decision'];
const MAX_SHOWN = 500;

export function createEventsPanel(root: HTMLElement, opts: { timezone: string; alarmLevels: () => Set<string>; onEvent: (m: Message) => void; onFilters: () => void }): EventsPanel {
  root.innerHTML = `
    <form class="filters" aria-label="Event filters">
      <label>Category <select name="category"><option value="">all</option>${CATEGORIES.map((c) => `<option>${c}</option>`).join('')}</select></label>
      <label>Severity at least <select name="severity"><option value="">low</option>${SEVERITIES.slice(1).map((s) => `<option>${s}</option>`).join('')}</select></label>
      <label>Zone <input name="zone" type="text" placeholder="any" autocomplete="off"></label>
    </form>
    <p class="state" role="status" aria-live="polite"></p>
    <div class="gap" role="alert" hidden></div>
    <ol class="events" aria-label="Events, newest first"></ol>`;
  const form = root.querySelector('form') as HTMLFormElement;
  const list = root.querySelector('ol') as HTMLOListElement;
  const state = root.querySelector('.state') as HTMLElement;
  const gap = root.querySelector('.gap') as HTMLElement;
  const shown = new Map<string, HTMLLIElement>();
  let zoneTimer: number | undefined;
  form.addEventListener('change', () => opts.onFilters());
  form.addEventListener('input', (e) => {
    if ((e.target as HTMLElement).tagName !== 'INPUT') return;
    clearTimeout(zoneTimer);
    zoneTimer = window.setTimeout(() => opts.onFilters(), 500);
  });
  form.addEventListener('submit', (e) => e.preventDefault());
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

  return {
    filters() {
      const data = new FormData(form);
      const category = String(data.get('category') ?? '');
      const severity = String(data.get('severity') ?? '');
      const zone = String(data.get('zone') ?? '').trim();
      return { ...(category ? { categories: [category] } : {}), ...(severity ? { min_severity: severity } : {}), ...(zone ? { zones: [zone] } : {}) };
    },
    setState(text) {
      state.textContent = text;
    },
    take(m) {
      if (m.type === 'gap') {
        gap.hidden = false;
        gap.textContent = `${m.missed_events} events were missed while disconnected (${portTime(m.start_date, opts.timezone)} to ${portTime(m.end_date, opts.timezone)}); they are in the events list of the API.`;
        return;
      }
      if (m.type === 'subscribed' && !m.resume) gap.hidden = true;
      if (m.type !== 'event') return;
      const isNew = !shown.has(m.id);
      const li = shown.get(m.id) ?? document.createElement('li');
      li.className = `event severity-${m.severity}${isNew ? ' new' : ''}`;
      li.tabIndex = 0;
      li.dataset.id = m.id;
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
      if (isNew) {
        shown.set(m.id, li);
        list.prepend(li);
        while (shown.size > MAX_SHOWN) {
          const last = list.lastElementChild as HTMLLIElement;
          shown.delete(last.dataset.id as string);
          last.remove();
        }
        window.setTimeout(() => li.classList.remove('new'), 10_000);
        if (opts.alarmLevels().has(m.severity)) alarm();
        opts.onEvent(m);
      }
      root.dataset.events = String(shown.size);
    },
  };
}
