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

/** A time in the port's timezone, as operators read it: 2026-11-26 07:48:29. */
export function portTime(iso: string | number, timezone: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return new Intl.DateTimeFormat('sv-SE', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' }).format(d);
}
