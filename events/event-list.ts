// GET /v1/events in SQL: every filter of the spec over the events as operators see them now
// (security_events_current: requires_action, assigned_to and incident_id with their triage), each
// condition written so an index of migration 0011 serves it, every value a parameter.
import type { Pool } from '../platform/postgres.ts';
import { EVENT_SEVERITIES, type SecurityEvent } from '../schemas/event.ts';
import type { EventFilter } from './event-filter.ts';

/** What a `zone` filter matches: events naming one of these zones (lower case), or carrying one of these zone ids. */
export interface ZoneMatch {
  names: string[];
  ids: string[];
}

export interface EventListSql {
  /** The page: `body` of each event, in the requested order (and `total` of all matches when totalInPage). */
  page: string;
  pageParams: unknown[];
  /** How many events match, ignoring the page. */
  count: string;
  countParams: unknown[];
  /**
   * A search counts its matches in the page's own statement: its index read is the costly part and is
   * done once. Other filters count from an index alone, cheaper than ranking every match.
   */
  totalInPage: boolean;
}

/** Spec: critical > high > medium > low; the same numbers as event_severity_rank() (migration 0011). */
export function severityRank(severity: (typeof EVENT_SEVERITIES)[number]): number {
  return EVENT_SEVERITIES.indexOf(severity) + 1;
}

/**
 * Builds the two statements of a list query. Pure; the text depends only on which filters are present.
 * Both select from security_events alone, unless a filter concerns what operators change: then from
 * security_events_current, whose join keeps PostgreSQL from answering from an index alone. The page
 * picks its ids (and sort keys) first and reads the bodies as operators see them for those only.
 */
export function eventListSql(filter: EventFilter, zone?: ZoneMatch): EventListSql {
  const params: unknown[] = [];
  const p = (value: unknown, cast: string) => `$${params.push(value)}::${cast}`;
  const operatorFields = filter.requiresAction !== undefined || filter.incidentId !== undefined || filter.assignedTo !== undefined;
  const source = operatorFields ? 'security_events_current' : 'security_events';
  const conditions = whereClauses(filter, zone, operatorFields, p).join('\n   AND ');
  const count = `SELECT count(*)::bigint AS n FROM ${source} AS e\n WHERE ${conditions}`;
  const countParams = [...params];

  const direction = filter.order === 'asc' ? 'ASC' : 'DESC';
  const keys = (t: string) => (filter.sort === 'severity' ? [`event_severity_rank(${t}.severity)`, `${t}.occurred_at`, `${t}.id`] : [`${t}.occurred_at`, `${t}.id`]);
  const orderBy = (t: string) => keys(t).map((k) => `${k} ${direction}`).join(', ');
  const limit = p(filter.perPage, 'int');
  const offset = p((filter.page - 1) * filter.perPage, 'bigint');
  const totalInPage = filter.searchWords !== undefined;
  const pick = `SELECT e.id, e.occurred_at, e.severity FROM ${source} AS e\n    WHERE ${conditions}`;
  const bodies = `) AS p JOIN security_events_current AS c ON c.id = p.id\n ORDER BY ${orderBy('p')}`;
  // The search's matches are gathered once (through the text index: MATERIALIZED keeps the LIMIT from
  // tempting the planner into reading the whole window in time order), then counted and paged.
  const page = totalInPage
    ? `WITH matches AS MATERIALIZED (\n   ${pick}\n )\nSELECT c.body, (SELECT count(*) FROM matches) AS total FROM (\n   SELECT * FROM matches AS e ORDER BY ${orderBy('e')} LIMIT ${limit} OFFSET ${offset}\n ${bodies}`
    : `SELECT c.body FROM (\n   ${pick}\n    ORDER BY ${orderBy('e')}\n    LIMIT ${limit} OFFSET ${offset}\n ${bodies}`;
  return { page, pageParams: params, count, countParams, totalInPage };
}

/** One condition per filter, over `e` (the table, or the view when `operatorFields`); values through `p`. */
function whereClauses(filter: EventFilter, zone: ZoneMatch | undefined, operatorFields: boolean, p: (value: unknown, cast: string) => string): string[] {
  const where = [`e.occurred_at >= ${p(filter.start, 'timestamptz')}`, `e.occurred_at <= ${p(filter.end, 'timestamptz')}`];
  if (filter.categories) where.push(`e.category = ANY(${p(filter.categories, 'text[]')})`);
  if (filter.types) where.push(`e.type = ANY(${p(filter.types, 'text[]')})`);
  if (filter.severities) where.push(`event_severity_rank(e.severity) = ANY(${p(filter.severities.map(severityRank), 'smallint[]')})`);
  if (filter.sourceModule !== undefined) where.push(`e.source_module = ${p(filter.sourceModule, 'text')}`);
  if (zone) {
    // The view names the zone id; on the table it is the indexed expression itself.
    const zoneId = operatorFields ? 'e.zone_id' : `(e.body->'metadata'->>'zone_id')`;
    where.push(`(lower(e.zone) = ANY(${p(zone.names, 'text[]')}) OR ${zoneId} = ANY(${p(zone.ids, 'text[]')}))`);
  }
  if (filter.requiresAction !== undefined) where.push(`e.requires_action = ${p(filter.requiresAction, 'boolean')}`);
  if (filter.incidentId !== undefined) {
    // The current value decides; the candidates come from the two indexes that can hold it.
    const incident = p(filter.incidentId, 'text');
    where.push(`e.incident_id = ${incident}`);
    where.push(`e.id IN (SELECT id FROM security_events WHERE incident_id = ${incident} UNION ALL SELECT event_id FROM event_triage WHERE incident_id = ${incident})`);
  }
  if (filter.assignedTo !== undefined) {
    const operator = p(filter.assignedTo, 'text');
    where.push(`e.assigned_to = ${operator}`);
    where.push(`e.id IN (SELECT id FROM security_events WHERE body->>'assigned_to' = ${operator} AND body->>'assigned_to' <> ''
                   UNION ALL SELECT event_id FROM event_triage WHERE assigned_to = ${operator} AND assigned_to <> '')`);
  }
  if (filter.searchWords) where.push(`e.search @@ event_search_query(${p(filter.searchWords, 'text[]')})`);
  return where;
}

/**
 * A zone filter's value as names and ids: itself as either, plus the threat zone it names or identifies.
 * So a zone's id finds events that only name it, and its name finds events from before a rename.
 */
export async function zoneMatch(pool: Pool, zone: string): Promise<ZoneMatch> {
  const { rows } = await pool.query<{ name: string; id: string }>('SELECT name, id FROM zones WHERE id = $1 OR lower(name) = lower($1)', [zone]);
  return { names: [...new Set([zone, ...rows.map((r) => r.name)].map((n) => n.toLowerCase()))], ids: [...new Set([zone, ...rows.map((r) => r.id)])] };
}

/** One page of events and the number of all that match (read at the same time, on two connections, unless the page counts). */
export async function listEvents(pool: Pool, filter: EventFilter): Promise<{ events: SecurityEvent[]; total: number }> {
  // The zone is looked up first so the planner sees the names and ids it estimates index reads with.
  const sql = eventListSql(filter, filter.zone === undefined ? undefined : await zoneMatch(pool, filter.zone));
  const count = async () => Number((await pool.query<{ n: string }>(sql.count, sql.countParams)).rows[0]?.n ?? 0);
  if (sql.totalInPage) {
    const page = await pool.query<{ body: SecurityEvent; total: string }>(sql.page, sql.pageParams);
    // A page past the end has no row to carry the total.
    const total = page.rows[0] ? Number(page.rows[0].total) : filter.page === 1 ? 0 : await count();
    return { events: page.rows.map((r) => r.body), total };
  }
  const [page, total] = await Promise.all([pool.query<{ body: SecurityEvent }>(sql.page, sql.pageParams), count()]);
  return { events: page.rows.map((r) => r.body), total };
}
