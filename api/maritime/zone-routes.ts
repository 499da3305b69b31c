// Threat zone endpoints (spec "Threat zones"): create per the spec, and list, read, replace, patch and
// delete beside it, plus the dwell view. Geometry is checked three ways before anything is stored: the
// JSON Schema (structure, ranges), validateZoneGeometry (closed rings, self-intersection, vertex and
// extent limits, antimeridian) and PostGIS's ST_IsValid on the exact stored shape.
import { AppError } from '../../platform/errors.ts';
import { dataOf, listOf, pageQueryProperties } from '../../schemas/common.ts';
import { ALERT_LEVELS, ZONE_TYPES, storedZoneSchema, zoneCreateSchema, type StoredZone, type ZoneCreate } from '../../schemas/zone.ts';
import { dwellResponseSchema } from '../../schemas/dwell.ts';
import { compile, problems, validationError } from '../http/validation.ts';
import { defineRoute, sendData, sendList, type RouteDef } from '../http/routes.ts';
import { ZoneStore, zoneDwell, zoneProblems } from '../../processors/maritime/zones/index.ts';

const zoneIdParams = {
  type: 'object',
  required: ['zone_id'],
  properties: { zone_id: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;

const zoneListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...pageQueryProperties,
    type: { type: 'string', enum: ZONE_TYPES },
    active: { type: 'boolean' },
    alert_level: { type: 'string', enum: ALERT_LEVELS },
  },
} as const;

/**
 * PATCH: any subset of the create fields; the merged zone must then be a valid create body. No
 * top-level defaults here: a default would count as a field sent (`{}` would pass minProperties) and
 * overwrite the stored value (`active: true` would re-activate a deactivated zone on every PATCH).
 */
const zonePatchSchema = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: { ...zoneCreateSchema.properties, active: { type: 'boolean' } },
} as const;
const validateMerged = compile('body', { ...zoneCreateSchema, $id: undefined });

const repo = (pool: import('../../platform/postgres.ts').Pool) => new ZoneStore(pool);

async function mustExist(zones: ZoneStore, id: string): Promise<StoredZone> {
  const zone = await zones.get(id);
  if (!zone) throw new AppError('not_found', `Zone ${id} does not exist`);
  return zone;
}

/** Everything the schema cannot say about a zone, as 422 reasons; 409 for a name already in use. */
async function checkZone(zones: ZoneStore, body: ZoneCreate, exceptId?: string): Promise<void> {
  const problems = zoneProblems(body);
  if (problems.length === 0) {
    const postgisReason = await zones.shapeProblem({ ...body, id: 'check', created_at: '', updated_at: '' });
    if (postgisReason) problems.push({ path: '/geometry', message: postgisReason });
  }
  if (problems.length > 0) {
    const reasons = problems.map((p) => p.message);
    throw new AppError('validation_error', `Zone is invalid: ${reasons.join('; ')}`, problems.map(({ path, message }) => ({ location: 'body', path, message })));
  }
  if (await zones.nameTaken(body.name, exceptId)) {
    throw new AppError('resource_conflict', `A zone named "${body.name}" already exists`);
  }
}

export const zoneRoutes: RouteDef[] = [
  defineRoute({
    method: 'post',
    path: '/maritime/zones',
    scopes: ['maritime:write'],
    summary: 'Create a threat zone',
    tag: 'Maritime',
    body: zoneCreateSchema,
    responses: { 201: { description: 'The stored zone', schema: dataOf(storedZoneSchema) } },
    handler: async ({ ctx, body, res }) => {
      const zones = repo(ctx.pool);
      await checkZone(zones, body);
      const zone = await zones.create(body);
      res.setHeader('Location', `/v1/maritime/zones/${zone.id}`);
      sendData(res, 201, zone);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/maritime/zones',
    scopes: ['maritime:read'],
    summary: 'List threat zones',
    tag: 'Maritime',
    query: zoneListQuery,
    responses: { 200: { description: 'Zones, oldest first', schema: listOf(storedZoneSchema) } },
    handler: async ({ ctx, query, res }) => {
      const { zones, total } = await repo(ctx.pool).list(query);
      sendList(res, zones, query.page, query.per_page, total);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/maritime/zones/:zone_id',
    scopes: ['maritime:read'],
    summary: 'Read a threat zone',
    tag: 'Maritime',
    params: zoneIdParams,
    responses: { 200: { description: 'The zone', schema: dataOf(storedZoneSchema) } },
    handler: async ({ ctx, params, res }) => {
      sendData(res, 200, await mustExist(repo(ctx.pool), params.zone_id));
    },
  }),
  defineRoute({
    method: 'put',
    path: '/maritime/zones/:zone_id',
    scopes: ['maritime:write'],
    summary: 'Replace a threat zone',
    tag: 'Maritime',
    params: zoneIdParams,
    body: zoneCreateSchema,
    responses: { 200: { description: 'The stored zone', schema: dataOf(storedZoneSchema) } },
    handler: async ({ ctx, params, body, res }) => {
      const zones = repo(ctx.pool);
      const existing = await mustExist(zones, params.zone_id);
      await checkZone(zones, body, existing.id);
      sendData(res, 200, await zones.replace(existing, body));
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/maritime/zones/:zone_id',
    scopes: ['maritime:write'],
    summary: 'Change some fields of a threat zone',
    description: 'Top-level fields given replace the stored ones (geometry, schedule and buffer as a whole).',
    tag: 'Maritime',
    params: zoneIdParams,
    body: zonePatchSchema,
    responses: { 200: { description: 'The stored zone', schema: dataOf(storedZoneSchema) } },
    handler: async ({ ctx, params, body, res }) => {
      const zones = repo(ctx.pool);
      const existing = await mustExist(zones, params.zone_id);
      const { id: _id, created_at: _c, updated_at: _u, ...current } = existing;
      const merged = { ...current, ...body };
      if (!validateMerged(merged)) throw validationError(problems('body', validateMerged.errors));
      await checkZone(zones, merged as ZoneCreate, existing.id);
      sendData(res, 200, await zones.replace(existing, merged as ZoneCreate));
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/maritime/zones/:zone_id',
    scopes: ['maritime:write'],
    summary: 'Delete a threat zone',
    description: 'Vessels inside it get no exit events; the zone simply stops being watched.',
    tag: 'Maritime',
    params: zoneIdParams,
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ ctx, params, res }) => {
      if (!(await repo(ctx.pool).delete(params.zone_id))) throw new AppError('not_found', `Zone ${params.zone_id} does not exist`);
      res.status(204).end();
    },
  }),
  defineRoute({
    method: 'get',
    path: '/maritime/zones/:zone_id/dwell',
    scopes: ['maritime:read'],
    summary: 'Current dwell times of the vessels in a zone',
    description: 'Top-level fields (no data wrapper). Dwell is measured to the newest report time among the vessels in the zone (event time), so a replayed recording shows the dwell it had then.',
    tag: 'Maritime',
    params: zoneIdParams,
    responses: { 200: { description: 'Dwell response', schema: dwellResponseSchema } },
    handler: async ({ ctx, params, res }) => {
      res.json(await zoneDwell(ctx.pool, await mustExist(repo(ctx.pool), params.zone_id)));
    },
  }),
];
