// GET /v1/incidents and GET /v1/incidents/{id} in SQL: each filter a condition an index of migration 0022
// serves, every value a parameter; one incident with its events (as operators see them) and its timeline.
import { zoneMatch, type ZoneMatch } from '../events/event-list.ts';
import type { Pool } from '../platform/postgres.ts';
import { EVENT_SEVERITIES, type SecurityEvent } from '../schemas/event.ts';
import type { Incident, IncidentChange } from '../schemas/incident.ts';
import { INCIDENT_EVENT_TYPES } from './incident-events.ts';
import type { IncidentFilter } from './incident-filter.ts';
import { INCIDENT_COLUMNS, incidentOf, readIncident } from './incident-rows.ts';

/** Events shown in an incident's detail; GET /v1/events?incident_id= pages through every one. */
export const DETAIL_EVENTS = 200;

/** The page and count statements of a list query; pure (the text depends only on which filters are present). */
export function incidentListSql(filter: IncidentFilter, zone?: ZoneMatch): { page: string; count: string; params: unknown[]; pageParams: unknown[] } {
  const params: unknown[] = [];
  const p = (value: unknown, cast: string) => `$${params.push(value)}::${cast}`;
  const where: string[] = [];
  if (filter.statuses) where.push(`status = ANY(${p(filter.statuses, 'text[]')})`);
  if (filter.severities) where.push(`event_severity_rank(severity) = ANY(${p(filter.severities.map((s) => EVENT_SEVERITIES.indexOf(s) + 1), 'smallint[]')})`);
  if (zone) where.push(`(lower(zone) = ANY(${p(zone.names, 'text[]')}) OR zone_id = ANY(${p(zone.ids, 'text[]')}))`);
  if (filter.mmsi !== undefined) where.push(`mmsi = ${p(filter.mmsi, 'bigint')}`);
  if (filter.gate !== undefined) where.push(`gate_id = ${p(filter.gate, 'text')}`);
  if (filter.container !== undefined) where.push(`container_id = ${p(filter.container, 'text')}`);
  if (filter.plate !== undefined) where.push(`plate = ${p(filter.plate, 'text')}`);
  if (filter.start) where.push(`opened_at >= ${p(filter.start, 'timestamptz')}`);
  if (filter.end) where.push(`opened_at <= ${p(filter.end, 'timestamptz')}`);
  const conditions = where.length === 0 ? '' : `\n WHERE ${where.join('\n   AND ')}`;
  const count = `SELECT count(*)::bigint AS n FROM incidents${conditions}`;
  const countParams = [...params];
  const direction = filter.order === 'asc' ? 'ASC' : 'DESC';
  const keys = filter.sort === 'severity' ? ['event_severity_rank(severity)', 'opened_at', 'id'] : ['opened_at', 'id'];
  const page = `SELECT ${INCIDENT_COLUMNS} FROM incidents${conditions}\n ORDER BY ${keys.map((k) => `${k} ${direction}`).join(', ')}\n LIMIT ${p(filter.perPage, 'int')} OFFSET ${p((filter.page - 1) * filter.perPage, 'bigint')}`;
  return { page, count, params: countParams, pageParams: params };
}

/** One page of incidents and the number of all that match, read at the same time. */
export async function listIncidents(pool: Pool, filter: IncidentFilter): Promise<{ incidents: Incident[]; total: number }> {
  const sql = incidentListSql(filter, filter.zone === undefined ? undefined : await zoneMatch(pool, filter.zone));
  const [page, count] = await Promise.all([pool.query(sql.page, sql.pageParams), pool.query<{ n: string }>(sql.count, sql.params)]);
  return { incidents: page.rows.map(incidentOf), total: Number(count.rows[0]?.n ?? 0) };
}

export interface IncidentDetail extends Incident {
  events: SecurityEvent[];
  events_total: number;
  timeline: IncidentChange[];
  /** Empty here: the API fills them from the response loop's action log (api/incidents/routes.ts), which incidents/ does not read. */
  actions: object[];
  notifications: object[];
  escalations: object[];
}

// The events grouped in it: the current incident_id decides, the candidates come from the two indexes that can
// hold it (as the event list does). Its own incident_* events carry its id too; they are in the timeline.
const OF_INCIDENT = `FROM security_events_current WHERE incident_id = $1 AND type <> ALL($2::text[])
   AND id IN (SELECT id FROM security_events WHERE incident_id = $1 UNION ALL SELECT event_id FROM event_triage WHERE incident_id = $1)`;

export async function readIncidentDetail(pool: Pool, id: string): Promise<IncidentDetail | undefined> {
  const incident = await readIncident(pool, id);
  if (incident === undefined) return undefined;
  const [events, total, changes] = await Promise.all([
    pool.query<{ body: SecurityEvent }>(`SELECT body ${OF_INCIDENT} ORDER BY occurred_at, id LIMIT ${DETAIL_EVENTS}`, [id, INCIDENT_EVENT_TYPES]),
    pool.query<{ n: string }>(`SELECT count(*)::bigint AS n ${OF_INCIDENT}`, [id, INCIDENT_EVENT_TYPES]),
    pool.query<{ revision: number; changed_at: Date; action: string; principal: string; auth_kind: IncidentChange['by_kind']; event_id: string | null; before: Record<string, unknown>; after: Record<string, unknown> }>(
      'SELECT revision, changed_at, action, principal, auth_kind, event_id, before, after FROM incident_changes WHERE incident_id = $1 ORDER BY revision',
      [id],
    ),
  ]);
  const timeline = changes.rows.map((r) => ({ revision: r.revision, at: r.changed_at.toISOString(), action: r.action, by: r.principal, by_kind: r.auth_kind, event_id: r.event_id, before: r.before, after: r.after }));
  return { ...incident, events: events.rows.map((r) => r.body), events_total: Number(total.rows[0]?.n ?? 0), timeline, actions: [], notifications: [], escalations: [] };
}
