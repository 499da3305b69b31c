// The drones API (docs/drones.md "API"): the fleet's status, missions (list, detail, create, abort) and the
// HTTP ingest of telemetry. The rules live in drones/; these routes read the request and answer.
import { droneDeadLetter, judgeTelemetry } from '../../drones/fleet-intake.ts';
import { fleetStatus, listMissions, missionListProblems, missionView } from '../../drones/mission-list.ts';
import { readMission } from '../../drones/mission-store.ts';
import { abortMission, missionIdOf, requestMission } from '../../drones/missions.ts';
import { fleetSettings } from '../../drones/settings.ts';
import { groupingOf, vesselNumber } from '../../incidents/grouping.ts';
import { readEvent } from '../../events/queries.ts';
import { AppError } from '../../platform/errors.ts';
import { inTransaction } from '../../platform/postgres.ts';
import { dataOf, errorBodySchema, listOf } from '../../schemas/common.ts';
import { droneStatusSchema, droneTelemetrySchema, missionAbortSchema, missionCreateSchema, missionListQuerySchema, missionSchema } from '../../schemas/drone.ts';
import { defineRoute, sendData, sendList, type RouteDef } from '../http/routes.ts';
import { IDEMPOTENCY_HEADER, idempotencyKey } from '../http/idempotency.ts';
import { locatedIn } from '../http/validation.ts';
import { randomUUID } from 'node:crypto';

const missionParams = { type: 'object', required: ['mission_id'], properties: { mission_id: { type: 'string', minLength: 1, maxLength: 64 } } } as const;
const TELEMETRY_MAX_ITEMS = 1_000;

export const droneRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/drones',
    scopes: ['drones:read'],
    summary: 'Fleet status: each drone\'s state, battery, position, link and when it was last seen',
    tag: 'Drones',
    responses: { 200: { description: 'Every drone that has reported telemetry', schema: dataOf({ type: 'array', items: droneStatusSchema }) } },
    handler: async ({ ctx, res }) => sendData(res, 200, await fleetStatus(ctx.pool, fleetSettings(ctx.config), Date.now())),
  }),
  defineRoute({
    method: 'get',
    path: '/drones/missions',
    scopes: ['drones:read'],
    summary: 'List drone missions',
    description: 'Filters combine with AND (status, kind, drone_id, incident_id, created between start_date and end_date); newest first; paged as events are.',
    tag: 'Drones',
    query: missionListQuerySchema,
    check: ({ query }) => missionListProblems(query as { start_date?: unknown; end_date?: unknown }).map(locatedIn('query')),
    responses: { 200: { description: 'One page of missions', schema: listOf(missionSchema) } },
    handler: async ({ ctx, query, res }) => {
      const { missions, total } = await listMissions(ctx.pool, query);
      sendList(res, missions, query.page, query.per_page, total);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/drones/missions/:mission_id',
    scopes: ['drones:read'],
    summary: 'Read a drone mission with its timeline and evidence',
    tag: 'Drones',
    params: missionParams,
    responses: { 200: { description: 'The mission', schema: dataOf(missionSchema) } },
    handler: async ({ ctx, params, res }) => {
      const mission = await readMission(ctx.pool, params.mission_id);
      if (mission === undefined) throw new AppError('not_found', `Mission ${params.mission_id} does not exist`);
      sendData(res, 200, missionView(mission, true));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/drones/missions',
    scopes: ['drones:write'],
    summary: 'Create a drone mission',
    description:
      `The nearest available drone is given the mission and its launch command at once; with none available the mission is still recorded and answered, waiting in requested until a drone frees up or its deadline passes (PSS_DRONE_REQUEST_TIMEOUT_MS). ` +
      `With an ${IDEMPOTENCY_HEADER} header a retry answers 200 with the mission the first request recorded (header Idempotent-Replayed: true); the same key with other content answers 409. ` +
      'An incident has at most one active mission per subject: a second answers 409 naming the first.',
    tag: 'Drones',
    body: missionCreateSchema,
    bodyLimit: 256 * 1024,
    responses: {
      201: { description: 'The mission as recorded (requested, with or without its drone)', schema: dataOf(missionSchema) },
      200: { description: `The mission an earlier request with this ${IDEMPOTENCY_HEADER} recorded, as it is now`, schema: dataOf(missionSchema) },
      409: { description: 'The key was used with other content, or the incident already has an active mission for the subject', schema: errorBodySchema },
    },
    handler: async ({ ctx, body, principal, req, res }) => {
      const key = idempotencyKey(req);
      const s = fleetSettings(ctx.config);
      const outcome = await inTransaction(ctx.pool, async (client) => {
        const cause = body.event_id === undefined ? undefined : await readEvent(client, body.event_id);
        if (body.event_id !== undefined && cause === undefined) throw new AppError('validation_error', `Event ${body.event_id} does not exist`, [{ location: 'body', path: '/event_id', message: 'no such event' }]);
        const id = missionIdOf(key === undefined ? `api:${randomUUID()}` : `api:${principal.credentialId}:${key}`);
        const incidentId = body.incident_id ?? cause?.incident_id ?? null;
        const mmsi = body.mmsi ?? vesselNumber((cause?.metadata as { mmsi?: unknown } | undefined)?.mmsi) ?? null;
        const subject = body.subject ?? (cause !== undefined ? groupingOf(cause).key : mmsi !== null ? `vessel:${mmsi}` : `mission:${id}`);
        const requested = await requestMission(client, {
          id, kind: body.kind, target: body.target, subject, incident_id: incidentId, event_id: cause?.id ?? null, action_id: null, priority: 'manual', mmsi,
          requested_by: principal.credentialId, idempotency_key: key ?? null,
        }, s, new Date());
        return { requested, incidentId, subject };
      }, { retryConflicts: true });
      const m = outcome.requested.mission;
      if (!outcome.requested.created) {
        if (key !== undefined && m.idempotency_key === key && m.requested_by === principal.credentialId) {
          const same = m.kind === body.kind && JSON.stringify(m.target) === JSON.stringify(body.target) && (body.incident_id === undefined || m.incident_id === body.incident_id);
          if (!same) throw new AppError('resource_conflict', `${IDEMPOTENCY_HEADER} ${JSON.stringify(key)} was used for mission ${m.id}, whose kind, target or incident differ from this request's`);
          res.setHeader('Idempotent-Replayed', 'true');
          res.setHeader('Location', `/v1/drones/missions/${m.id}`);
          sendData(res, 200, missionView(m, true));
          return;
        }
        throw new AppError('resource_conflict', `Incident ${outcome.incidentId} already has mission ${m.id} (${m.status}) for ${outcome.subject}`);
      }
      ctx.relay.wake();
      res.setHeader('Location', `/v1/drones/missions/${m.id}`);
      sendData(res, 201, missionView(m, true));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/drones/missions/:mission_id/abort',
    scopes: ['drones:write'],
    summary: 'Abort a drone mission',
    description: 'The mission ends as aborted with the reason (weather, manual, low_battery, other); a drone on it is sent an abort command (it returns home) and mission_aborted is raised. A mission already ended answers 409.',
    tag: 'Drones',
    params: missionParams,
    body: missionAbortSchema,
    responses: { 200: { description: 'The aborted mission', schema: dataOf(missionSchema) }, 409: { description: 'The mission has already ended', schema: errorBodySchema } },
    handler: async ({ ctx, params, body, principal, res }) => {
      const result = await inTransaction(ctx.pool, (client) => abortMission(client, params.mission_id, body.reason, `${principal.subject}${body.note === undefined ? '' : ` (${body.note})`}`, new Date()), { retryConflicts: true });
      if (result.mission === undefined) throw new AppError('not_found', `Mission ${params.mission_id} does not exist`);
      if (result.refused !== undefined) throw new AppError('resource_conflict', `Mission ${params.mission_id} cannot be aborted: ${result.refused}`);
      ctx.relay.wake();
      sendData(res, 200, missionView(result.mission, true));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/ingest/drones',
    scopes: ['ingest:write'],
    summary: 'Submit drone telemetry',
    description: `Body: one telemetry record or an array of up to ${TELEMETRY_MAX_ITEMS} (schemas/drone.ts): ${JSON.stringify(droneTelemetrySchema)}. Each is judged on its own: valid ones go to drone.telemetry, invalid ones to the dead-letter topic; 202 when none was rejected, 422 listing the rejected ones otherwise.`,
    tag: 'Ingest',
    body: { oneOf: [{ type: 'object' }, { type: 'array', minItems: 1, maxItems: TELEMETRY_MAX_ITEMS, items: { type: 'object' } }] } as const,
    responses: {
      202: { description: 'Every record was accepted (acknowledged by Kafka)', schema: dataOf({ type: 'object', properties: { received: { type: 'integer' }, accepted_count: { type: 'integer' }, rejected_count: { type: 'integer' } } }) },
      422: { description: 'Some or all records were rejected; error.details lists them (index, reason, detail)', schema: errorBodySchema },
    },
    handler: async ({ ctx, body, principal, res }) => {
      const items = (Array.isArray(body) ? body : [body]) as unknown[];
      const now = new Date();
      const records = [];
      const rejected: { index: number; reason: string; detail: string }[] = [];
      for (const [index, item] of items.entries()) {
        const text = JSON.stringify(item);
        const judged = judgeTelemetry(text);
        if (judged.ok) records.push({ topic: ctx.topics.droneTelemetry, key: judged.value.drone_id, value: ctx.codec.encode('droneTelemetry', text) });
        else {
          rejected.push({ index, reason: judged.reason, detail: judged.detail });
          records.push(droneDeadLetter(ctx, text, `http:${principal.credentialId}`, judged, now));
        }
      }
      await ctx.producer.send(records);
      const answer = { received: items.length, accepted_count: items.length - rejected.length, rejected_count: rejected.length };
      if (rejected.length === 0) {
        sendData(res, 202, answer);
        return;
      }
      throw new AppError('validation_error', `${rejected.length} of ${items.length} records rejected (see details.rejected)`, { ...answer, rejected });
    },
  }),
];
