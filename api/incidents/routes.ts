// Incident endpoints (issue 23, item 5; docs/response.md "Incidents"): the list with its filters, one incident with
// its events and timeline, the operators' changes and merging. The rules live in incidents/; these routes
// read the request and answer. Scopes: events:read and events:write, as for the events they group. The
// detail's actions, notifications and escalations come from the response loop's action log, composed here
// (incidents/ sits below response/ and does not read it).
import { incidentFilter, incidentFilterProblems } from '../../incidents/incident-filter.ts';
import { listIncidents, readIncidentDetail } from '../../incidents/queries.ts';
import { changeIncident, merge } from '../../incidents/store.ts';
import { AppError } from '../../platform/errors.ts';
import { inTransaction } from '../../platform/postgres.ts';
import { listActions } from '../../response/action-log.ts';
import { escalationDeliveryPairs, incidentResponseRecords } from '../../response/incident-records.ts';
import { deliveryCounts } from '../../delivery/webhooks/delivery-counts.ts';
import { dataOf, listOf } from '../../schemas/common.ts';
import { incidentDetailSchema, incidentListQuerySchema, incidentMergeSchema, incidentPatchSchema, incidentSchema } from '../../schemas/incident.ts';
import { operatorOf } from '../events/routes.ts';
import { defineRoute, sendData, sendList, type RouteDef } from '../http/routes.ts';
import type { Problem } from '../http/validation.ts';

const incidentIdParams = {
  type: 'object',
  required: ['incident_id'],
  properties: { incident_id: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;

/** What the patch schema cannot say: a resolution needs its reason, and a reason belongs to a resolution. */
function patchProblems(body: unknown): Problem[] {
  if (typeof body !== 'object' || body === null) return [];
  const b = body as Record<string, unknown>;
  if (b.status === 'resolved' && b.resolution_reason === undefined) return [{ location: 'body', path: '/resolution_reason', message: 'is required with status resolved' }];
  if (b.status !== 'resolved' && b.resolution_reason !== undefined) return [{ location: 'body', path: '/resolution_reason', message: 'is only allowed with status resolved' }];
  return [];
}

export const incidentRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/incidents',
    scopes: ['events:read'],
    summary: 'List incidents',
    description: 'Every filter combines with AND; no default time window (an old incident may still be open). Sorted by opening time, or by severity (critical first, ties by opening time); newest first unless order=asc.',
    tag: 'Incidents',
    query: incidentListQuerySchema,
    check: ({ query }) => incidentFilterProblems(query).map((p): Problem => ({ location: 'query', ...p })),
    responses: { 200: { description: 'One page of incidents', schema: listOf(incidentSchema) } },
    handler: async ({ ctx, query, res }) => {
      const { incidents, total } = await listIncidents(ctx.pool, incidentFilter(query));
      sendList(res, incidents, query.page, query.per_page, total);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/incidents/:incident_id',
    scopes: ['events:read'],
    summary: 'Read an incident with its events, timeline and response',
    description: 'actions: every action the response loop planned for it; notifications and escalations: its notify and escalate actions as operators read them, each escalation with how its deliveries stand (docs/response.md "Responding to alerts").',
    tag: 'Incidents',
    params: incidentIdParams,
    responses: { 200: { description: 'The incident', schema: dataOf(incidentDetailSchema) } },
    handler: async ({ ctx, params, res }) => {
      const incident = await readIncidentDetail(ctx.pool, params.incident_id);
      if (!incident) throw new AppError('not_found', `Incident ${params.incident_id} does not exist`);
      const actions = await listActions(ctx.pool, { incidentId: incident.id });
      sendData(res, 200, { ...incident, ...incidentResponseRecords(actions, await deliveryCounts(ctx.pool, escalationDeliveryPairs(actions))) });
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/incidents/:incident_id',
    scopes: ['events:write'],
    summary: 'Acknowledge, assign, resolve or annotate an incident',
    description: 'Applied in the order assigned_to, acknowledged, note, resolved; each change is audited (who, when, before, after). Acknowledging or resolving stores incident_acknowledged / incident_resolved. A patch that changes nothing writes nothing; acknowledging a resolved incident, or changing a merged one, answers 409.',
    tag: 'Incidents',
    params: incidentIdParams,
    body: incidentPatchSchema,
    check: ({ body }) => patchProblems(body),
    responses: { 200: { description: 'The incident as it is now', schema: dataOf(incidentSchema) } },
    handler: async ({ ctx, params, body, principal, res }) => {
      const update = await inTransaction(ctx.pool, (client) => changeIncident(client, params.incident_id, body, operatorOf(principal), new Date()), { retryConflicts: true });
      if (update.events.length > 0) ctx.relay.wake();
      sendData(res, 200, update.incident);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/incidents/:incident_id/merge',
    scopes: ['events:write'],
    summary: 'Merge an incident into another',
    description: 'The other incident (into, not resolved) takes this one\'s events (their incident_id changes and they are published again) and severity; this one is resolved, merged_into the other. Both changes are audited.',
    tag: 'Incidents',
    params: incidentIdParams,
    body: incidentMergeSchema,
    responses: { 200: { description: 'The incident merged into, as it is now', schema: dataOf(incidentSchema) } },
    handler: async ({ ctx, params, body, principal, res }) => {
      const merged = await inTransaction(ctx.pool, (client) => merge(client, params.incident_id, body.into, operatorOf(principal), new Date()), { retryConflicts: true });
      ctx.relay.wake();
      sendData(res, 200, merged.target);
    },
  }),
];
