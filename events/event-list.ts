// GET /v1/events in SQL: every filter of the spec over the events as operators see them now
// (security_events_current: requires_action, assigned_to and incident_id with their triage), each
// condition written so an index of migration 0011 serves it, every value a parameter.
import type { Pool } from '../platform/postgres.ts';
import { EVENT_SEVERITIES, type SecurityEvent } from '../schemas/event.ts';
import type { EventFilter } from './event-filter.ts';

export interface EventListSql {
  /** The page: `body` of each event, in the requested order. */
  page: string;
  pageParams: unknown[];
  /** How many events match, ignoring the page. */
  count: string;
  countParams: unknown[];
}

/** Spec: critical > high > medium > low; the same numbers as event_severity_rank() (migration 0011). */
export function severityRank(severity: (typeof EVENT_SEVERITIES)[number]): number {
  return EVENT_SEVERITIES.indexOf(severity) + 1;
}

/** Builds the two statements of a list query. Pure; the text depends only on which filters are present. */
export function eventListSql(filter: EventFilter): EventListSql {
  const params: unknown[] = [];
  const p = (value: unknown, cast: string) => `$${params.push(value)}::${cast}`;
  const where = [`e.occurred_at >= ${p(filter.start, 'timestamptz')}`, `e.occurred_at <= ${p(filter.end, 'timestamptz')}`];

  if (filter.categories) where.push(`e.category = ANY(${p(filter.categories, 'text[]')})`);
  if (filter.severities) where.push(`event_severity_rank(e.severity) = ANY(${p(filter.severities.map(severityRank), 'smallint[]')})`);
  if (filter.sourceModule !== undefined) where.push(`e.source_module = ${p(filter.sourceModule, 'text')}`);
  if (filter.zone !== undefined) {
    // A name matches events that carry it, and the zone's id (so events from before a rename); an id
    // matches events that carry it, and the zone's name (events from modules that know only names).
    const zone = p(filter.zone, 'text');
    where.push(`(lower(e.zone) = ANY(ARRAY(SELECT lower(${zone}) UNION SELECT lower(name) FROM zones WHERE id = ${zone}))
       OR e.zone_id = ANY(ARRAY(SELECT ${zone} UNION SELECT id FROM zones WHERE lower(name) = lower(${zone}))))`);
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

  const direction = filter.order === 'asc' ? 'ASC' : 'DESC';
  const keys = filter.sort === 'severity' ? ['event_severity_rank(e.severity)', 'e.occurred_at', 'e.id'] : ['e.occurred_at', 'e.id'];
  const conditions = where.join('\n   AND ');
  const count = `SELECT count(*)::bigint AS n FROM security_events_current AS e\n WHERE ${conditions}`;
  const countParams = [...params];
  const limit = p(filter.perPage, 'int');
  const offset = p((filter.page - 1) * filter.perPage, 'bigint');
  const page = `SELECT e.body FROM security_events_current AS e\n WHERE ${conditions}\n ORDER BY ${keys.map((k) => `${k} ${direction}`).join(', ')}\n LIMIT ${limit} OFFSET ${offset}`;
  return { page, pageParams: params, count, countParams };
}

/** One page of events and the number of all that match, read at the same time on two connections. */
export async function listEvents(pool: Pool, filter: EventFilter): Promise<{ events: SecurityEvent[]; total: number }> {
  const sql = eventListSql(filter);
  const [page, count] = await Promise.all([
    pool.query<{ body: SecurityEvent }>(sql.page, sql.pageParams),
    pool.query<{ n: string }>(sql.count, sql.countParams),
  ]);
  return { events: page.rows.map((r) => r.body), total: Number(count.rows[0]?.n ?? 0) };
}
