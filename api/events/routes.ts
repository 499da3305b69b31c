// Security event endpoints (spec "Events"): the list with every filter, one event, intake from the port's
// perimeter, drone and system modules, and the operator's changes. The rules live in events/; these
// routes read the request and answer.
import { eventFilter, filterProblems } from '../../events/event-filter.ts';
import { listEvents } from '../../events/event-list.ts';
import { intakeEvent, intakeEventId, intakeProblems, recordIntake } from '../../events/intake.ts';
import { readEvent } from '../../events/queries.ts';
import { changeEvent, type Operator } from '../../events/triage.ts';
import { AppError } from '../../platform/errors.ts';
import { dataOf, listOf } from '../../schemas/common.ts';
import { securityEventSchema } from '../../schemas/event.ts';
import { eventIntakeSchema, eventListQuerySchema, eventPatchSchema } from '../../schemas/event-api.ts';
import type { Principal } from '../auth/principal.ts';
import { defineRoute, sendData, sendList, type RouteDef } from '../http/routes.ts';
import { IDEMPOTENCY_HEADER, idempotencyKey } from '../http/idempotency.ts';
import { locatedIn } from '../http/validation.ts';

const eventIdParams = {
  type: 'object',
  required: ['event_id'],
  properties: { event_id: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;

/** Events are small (the relay sends each as one Kafka record); 64 KiB leaves room for any metadata. */
const INTAKE_BODY_LIMIT = 64 * 1024;

/** The author of an operator change, as event_changes and incident_changes keep it. */
export function operatorOf(principal: Principal): Operator {
  return { credentialId: principal.credentialId, principal: principal.subject, kind: principal.kind === 'oauth' ? 'oauth' : 'api_key' };
}

export const eventRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/events',
    scopes: ['events:read'],
    summary: 'List security events',
    description: 'Every filter combines with AND; the window defaults to the 24 hours before end_date (default now). Sorted by time or by severity (critical first, ties by time), newest first unless order=asc.',
    tag: 'Events',
    query: eventListQuerySchema,
    check: ({ query }) => filterProblems(query, new Date()).map(locatedIn('query')),
    responses: { 200: { description: 'One page of events', schema: listOf(securityEventSchema) } },
    handler: async ({ ctx, query, res }) => {
      const { events, total } = await listEvents(ctx.pool, eventFilter(query, new Date()));
      sendList(res, events, query.page, query.per_page, total);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/events',
    scopes: ['events:write'],
    summary: 'Report a security event from a perimeter, drone or system module',
    description: `Validated against the event type table. With an ${IDEMPOTENCY_HEADER} header the event id comes from (source_module, key): a retry answers 200 with the event already stored (header Idempotent-Replayed: true); the same key with other content answers 409.`,
    tag: 'Events',
    body: eventIntakeSchema,
    bodyLimit: INTAKE_BODY_LIMIT,
    check: ({ body }) => intakeProblems(body, new Date()).map(locatedIn('body')),
    responses: {
      201: { description: 'The stored event', schema: dataOf(securityEventSchema) },
      200: { description: `The event an earlier request with this ${IDEMPOTENCY_HEADER} stored, as it is now`, schema: dataOf(securityEventSchema) },
    },
    handler: async ({ ctx, body, req, res }) => {
      const key = idempotencyKey(req);
      const event = intakeEvent(body, intakeEventId(body.source_module, key), new Date());
      const result = await recordIntake(ctx.pool, event, body.timestamp !== undefined);
      if (result.outcome === 'conflict') {
        throw new AppError('resource_conflict', `${IDEMPOTENCY_HEADER} ${JSON.stringify(key)} of source module ${body.source_module} was used for event ${result.event.id}, whose ${result.fields.join(', ')} differ from this request's`);
      }
      if (result.outcome === 'created') ctx.relay.wake();
      res.setHeader('Location', `/v1/events/${result.event.id}`);
      if (result.outcome === 'replayed') res.setHeader('Idempotent-Replayed', 'true');
      sendData(res, result.outcome === 'created' ? 201 : 200, result.event);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/events/:event_id',
    scopes: ['events:read'],
    summary: 'Read a security event',
    tag: 'Events',
    params: eventIdParams,
    responses: { 200: { description: 'The event as operators see it now', schema: dataOf(securityEventSchema) } },
    handler: async ({ ctx, params, res }) => {
      const event = await readEvent(ctx.pool, params.event_id);
      if (!event) throw new AppError('not_found', `Event ${params.event_id} does not exist`);
      sendData(res, 200, event);
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/events/:event_id',
    scopes: ['events:write'],
    summary: 'Change what operators change on an event: requires_action, assigned_to, incident_id',
    description: 'Every change is kept (who, when, before and after) and the event is published again on security.events with the record headers change: updated and revision: n. A patch that changes nothing writes and publishes nothing.',
    tag: 'Events',
    params: eventIdParams,
    body: eventPatchSchema,
    responses: { 200: { description: 'The event as it is now', schema: dataOf(securityEventSchema) } },
    handler: async ({ ctx, params, body, principal, res }) => {
      const change = await changeEvent(ctx.pool, params.event_id, body, operatorOf(principal));
      if (!change) throw new AppError('not_found', `Event ${params.event_id} does not exist`);
      if (change.changed) ctx.relay.wake();
      sendData(res, 200, change.event);
    },
  }),
];
