// What the page knows of this deployment: GET /console/config.json (api/console/routes.ts).
export interface ConsoleConfig {
  client_id: string;
  redirect_uri: string;
  auth_url: string;
  api_url: string;
  timezone: string;
  tile_url: string | null;
}

export async function loadConfig(): Promise<ConsoleConfig> {
  const res = await fetch('/console/config.json', { cache: 'no-store' });
  if (!res.ok) throw new Error(`the console's configuration could not be read (HTTP ${res.status})`);
  return (await res.json()) as ConsoleConfig;
}

const formats = new Map<string, Intl.DateTimeFormat>();

/**
 * A time in the port's timezone as operators read it, with the zone beside it so nobody takes it for their
 * own (a laptop on UTC, a visitor's phone): 2026-11-26 07:48:29 CET. The zone's short name is the browser's
 * (CET/CEST for Europe/Copenhagen; GMT+8 where a zone has no abbreviation in English).
 */
export function portTime(iso: string | number, timezone: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  let format = formats.get(timezone);
  if (!format) {
    format = new Intl.DateTimeFormat('sv-SE', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', timeZoneName: 'short' });
    formats.set(timezone, format);
  }
  return format.format(d);
}

/** The zone's short name now (CET or CEST), for the page's header. */
export function zoneName(timezone: string, at = Date.now()): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone: timezone, timeZoneName: 'short' }).formatToParts(at).find((p) => p.type === 'timeZoneName')?.value ?? timezone;
}
