// What the events panel shows, decided apart from the page (docs/console.md "Events"): the REST query for the
// history matching the panel's filters, and where a row goes in a list kept newest first. Pure.
export const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
export const CATEGORIES = ['gate', 'perimeter', 'maritime', 'drone', 'system', 'decision'] as const;
/** How far back the panel reads at sign-in and after a filter change. */
export const HISTORY_HOURS = 12;
/** Rows kept; the oldest go first. */
export const MAX_SHOWN = 500;

export interface PanelFilters {
  category?: string;
  minSeverity?: string;
  zone?: string;
}

/** The stream's filters (docs/events-and-delivery.md "Protocol") for the panel's. */
export function streamFilters(f: PanelFilters): Record<string, unknown> {
  return { ...(f.category ? { categories: [f.category] } : {}), ...(f.minSeverity ? { min_severity: f.minSeverity } : {}), ...(f.zone ? { zones: [f.zone] } : {}) };
}

/**
 * GET /v1/events query strings, newest first, for the last HISTORY_HOURS before `now` with the same filters as
 * the stream: a minimum severity becomes the list of severities from it up. The end lies 10 minutes ahead, as
 * intake takes timestamps up to 5 minutes ahead of the service's clock: such an event stored before the
 * subscription would otherwise be in neither the history nor the stream.
 */
export function historyQuery(f: PanelFilters, now: number, page: number, perPage = 200): string {
  const params = new URLSearchParams({
    start_date: new Date(now - HISTORY_HOURS * 3600_000).toISOString(),
    end_date: new Date(now + 10 * 60_000).toISOString(),
    sort: 'timestamp',
    order: 'desc',
    per_page: String(perPage),
    page: String(page),
  });
  if (f.category) params.set('category', f.category);
  const from = f.minSeverity ? SEVERITIES.indexOf(f.minSeverity as (typeof SEVERITIES)[number]) : 0;
  if (from > 0) params.set('severity', SEVERITIES.slice(from).join(','));
  if (f.zone) params.set('zone', f.zone);
  return `/events?${params.toString()}`;
}

/**
 * Where a row of this timestamp goes in rows kept newest first (their timestamps, in order): before the first
 * older one, so events of the same instant keep the order they came in.
 */
export function insertionIndex(timestamps: readonly string[], timestamp: string): number {
  const t = Date.parse(timestamp);
  let lo = 0;
  let hi = timestamps.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (Date.parse(timestamps[mid] as string) >= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** An event as the REST API gives it (`type`) in the stream's shape (`event_type`; `type` is the message's there). */
export function fromApi<T extends { type?: unknown; event_type?: unknown }>(e: T): T & { event_type: unknown } {
  return { ...e, event_type: e.event_type ?? e.type };
}

/** The PATCH body of Acknowledge: the action is taken, and whoever holds the event keeps it. */
export function acknowledgement(event: { assigned_to?: unknown }, operator: string): Record<string, unknown> {
  return { requires_action: false, ...(!event.assigned_to && operator ? { assigned_to: operator } : {}) };
}

/**
 * Whether an event of the history passes the zone filter as the stream applies it (its zone name, or a
 * maritime event's metadata.zone_id, exactly): the API's `zone` is looser (any case, and a zone's old name
 * through its id), and the list must not hold rows the stream would not have sent.
 */
export function matchesZone(e: { location?: { zone?: unknown } | null; metadata?: Record<string, unknown> | null }, zone: string | undefined): boolean {
  return !zone || e.location?.zone === zone || e.metadata?.zone_id === zone;
}
