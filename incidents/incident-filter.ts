// What GET /v1/incidents asks for, read from its query as GET /v1/events reads its own (the same list and
// date rules, the same problems); pure. incidents/queries.ts turns it into SQL.
import { listOf, parseInstant, type FilterProblem } from '../events/event-filter.ts';
import { EVENT_SEVERITIES, type EventSeverity } from '../schemas/event.ts';
import { INCIDENT_STATUSES, type IncidentListQuery, type IncidentStatus } from '../schemas/incident.ts';
import { normalizeId } from './grouping.ts';

export interface IncidentFilter {
  statuses?: IncidentStatus[];
  severities?: EventSeverity[];
  /** A zone name (case-insensitive) or a threat zone id. */
  zone?: string;
  mmsi?: number;
  gate?: string;
  container?: string;
  plate?: string;
  /** Opened at or after / at or before; no default window: an open incident of last week is still open. */
  start?: Date;
  end?: Date;
  sort: 'opened_at' | 'severity';
  order: 'asc' | 'desc';
  page: number;
  perPage: number;
}

export function incidentFilter(query: IncidentListQuery): IncidentFilter {
  return read(query).filter;
}

/** Every problem of the query's values as sent (its other fields may be wrong). */
export function incidentFilterProblems(query: unknown): FilterProblem[] {
  const q = (typeof query === 'object' && query !== null ? query : {}) as Record<string, unknown>;
  const text = (name: string) => (typeof q[name] === 'string' ? (q[name] as string) : undefined);
  return read({ status: text('status'), severity: text('severity'), start_date: text('start_date'), end_date: text('end_date'), sort: 'opened_at', order: 'desc', page: 1, per_page: 1 }).problems;
}

function read(query: IncidentListQuery): { filter: IncidentFilter; problems: FilterProblem[] } {
  const problems: FilterProblem[] = [];
  const start = query.start_date === undefined ? undefined : instantOf('start_date', query.start_date, problems);
  const end = query.end_date === undefined ? undefined : instantOf('end_date', query.end_date, problems);
  if (problems.length === 0 && start !== undefined && end !== undefined && start > end) {
    problems.push({ path: '/start_date', message: `must not be after end_date (${end.toISOString()})` });
  }
  const filter: IncidentFilter = {
    statuses: query.status === undefined ? undefined : listOf('status', query.status, INCIDENT_STATUSES, problems),
    severities: query.severity === undefined ? undefined : listOf('severity', query.severity, EVENT_SEVERITIES, problems),
    zone: query.zone,
    mmsi: query.mmsi,
    gate: query.gate,
    container: query.container === undefined ? undefined : normalizeId(query.container),
    plate: query.plate === undefined ? undefined : normalizeId(query.plate),
    start,
    end,
    sort: query.sort,
    order: query.order,
    page: query.page,
    perPage: query.per_page,
  };
  return { filter, problems };
}

function instantOf(name: string, raw: string, problems: FilterProblem[]): Date | undefined {
  const at = parseInstant(raw);
  if (at === undefined) problems.push({ path: `/${name}`, message: 'must be an ISO 8601 date or date-time, e.g. 2026-11-21 or 2026-11-21T07:00:00Z' });
  return at;
}
