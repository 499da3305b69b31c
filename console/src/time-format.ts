// How the gate and incident screens write times (issue 34): in the site's time zone (PSS_CONSOLE_TIMEZONE,
// the page's config.timezone) with the zone's abbreviation beside each, so a time read aloud on the radio
// or copied into a report is never ambiguous. One module, so a site setting can be swapped in later.

const cache = new Map<string, Intl.DateTimeFormat>();
function formatter(timezone: string, withDate: boolean): Intl.DateTimeFormat {
  const key = `${timezone}|${withDate}`;
  let f = cache.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', {
      timeZone: timezone, hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23', timeZoneName: 'short',
      ...(withDate ? { year: 'numeric', month: '2-digit', day: '2-digit' } : {}),
    });
    cache.set(key, f);
  }
  return f;
}

function parts(at: string | number | Date, timezone: string, withDate: boolean): Record<string, string> | undefined {
  const d = at instanceof Date ? at : new Date(at);
  if (Number.isNaN(d.getTime())) return undefined;
  return Object.fromEntries(formatter(timezone, withDate).formatToParts(d).map((p) => [p.type, p.value]));
}

/** 13:02:11 CET */
export function clockTime(at: string | number | Date, timezone: string): string {
  const p = parts(at, timezone, false);
  return p ? `${p.hour}:${p.minute}:${p.second} ${p.timeZoneName}` : String(at);
}

/** 2026-11-28 13:02:11 CET */
export function dateTime(at: string | number | Date, timezone: string): string {
  const p = parts(at, timezone, true);
  return p ? `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second} ${p.timeZoneName}` : String(at);
}

/** The time of day alone when it is today in the site's zone, else the date too. */
export function shortTime(at: string | number | Date, timezone: string, now: number = Date.now()): string {
  const day = (x: string | number | Date) => {
    const p = parts(x, timezone, true);
    return p ? `${p.year}-${p.month}-${p.day}` : '';
  };
  return day(at) === day(now) ? clockTime(at, timezone) : dateTime(at, timezone);
}

/** How long ago, as an operator says it: "just now", "12 min", "3 h 4 min", "2 d 5 h". */
export function age(at: string | number | Date, now: number = Date.now()): string {
  const ms = now - new Date(at).getTime();
  if (!Number.isFinite(ms)) return '';
  const min = Math.floor(ms / 60_000);
  if (min < 1) return 'just now';
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 24) return min % 60 ? `${h} h ${min % 60} min` : `${h} h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d} d ${h % 24} h` : `${d} d`;
}
