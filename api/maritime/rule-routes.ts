// Maritime rule endpoints (issue 12; alert rules issue 23): one zone's rules of every kind, and the bulk
// document in the spec's structures ("Per-zone configuration structures", entries naming their zone).
// Running processors pick up every change within seconds (the zones' NOTIFY, then polling).
import { AppError } from '../../platform/errors.ts';
import { dataOf } from '../../schemas/common.ts';
import { maritimeRulesSchema, zoneRuleSetSchema } from '../../schemas/maritime-rules.ts';
import { defineRoute, sendData, type RouteDef } from '../http/routes.ts';
import { ZoneStore } from '../../processors/maritime/zones/index.ts';
import { allRules, replaceAllRules, replaceZoneRules, ruleSetProblems, zoneRules, type RuleProblem, type RuleWriteGuard } from '../../processors/maritime/rules-config/rule-store.ts';
import { alertRuleProblemsIn, knownNames } from '../../processors/maritime/rules-config/alert-rule-problems.ts';
import { readSystemConfig, readSystemConfigLocked } from '../../response/settings/system-config-store.ts';
import type { ServiceContext } from '../../platform/context.ts';
import type { Problem } from '../http/validation.ts';

const zoneIdParams = {
  type: 'object',
  required: ['zone_id'],
  properties: { zone_id: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;

function refuse(problems: RuleProblem[]): never {
  throw new AppError(
    'validation_error',
    `Rules are invalid: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}`,
    problems.map(({ path, message }) => ({ location: 'body', path, message })),
  );
}

/** Alert rules name parties and gates of the system configuration: checked in the schema's pass (one 422). */
function alertRuleCheck(form: 'zone' | 'bulk') {
  return async ({ body }: { body: unknown }, ctx: ServiceContext): Promise<Problem[]> => {
    const rules = (body as { alert_rules?: unknown } | null)?.alert_rules;
    if (rules === undefined) return [];
    const known = knownNames(await readSystemConfig(ctx.pool));
    return alertRuleProblemsIn(body, known, form).map((p) => ({ location: 'body' as const, ...p }));
  };
}

/** The same names again inside the write, with the configuration locked until it commits. */
function namesGuard(body: unknown, form: 'zone' | 'bulk'): RuleWriteGuard | undefined {
  if ((body as { alert_rules?: unknown }).alert_rules === undefined) return undefined;
  return async (client) => alertRuleProblemsIn(body, knownNames(await readSystemConfigLocked(client)), form);
}

async function mustExist(ctx: { pool: import('../../platform/postgres.ts').Pool }, id: string): Promise<void> {
  if (!(await new ZoneStore(ctx.pool).get(id))) throw new AppError('not_found', `Zone ${id} does not exist`);
}

export const ruleRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/maritime/zones/:zone_id/rules',
    scopes: ['maritime:read'],
    summary: "Read a zone's rules (speed, AIS, vessel type, time, loitering, crossing, encounter and alert rules)",
    tag: 'Maritime',
    params: zoneIdParams,
    responses: { 200: { description: "The zone's rules ({} when it has none)", schema: dataOf(zoneRuleSetSchema) } },
    handler: async ({ ctx, params, res }) => {
      await mustExist(ctx, params.zone_id);
      sendData(res, 200, await zoneRules(ctx.pool, params.zone_id));
    },
  }),
  defineRoute({
    method: 'put',
    path: '/maritime/zones/:zone_id/rules',
    scopes: ['maritime:write'],
    summary: "Replace a zone's rules",
    description: 'Kinds absent from the body are removed; `{}` removes every rule of the zone. Parties and gates named by `alert_rules` must exist in the system configuration.',
    tag: 'Maritime',
    params: zoneIdParams,
    body: zoneRuleSetSchema,
    check: alertRuleCheck('zone'),
    responses: { 200: { description: "The zone's rules as stored", schema: dataOf(zoneRuleSetSchema) } },
    handler: async ({ ctx, params, body, res }) => {
      await mustExist(ctx, params.zone_id);
      const problems = ruleSetProblems(body);
      if (problems.length > 0) refuse(problems);
      const raced = await replaceZoneRules(ctx.pool, params.zone_id, body, namesGuard(body, 'zone'));
      if (raced.length > 0) refuse(raced);
      sendData(res, 200, body);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/maritime/rules',
    scopes: ['maritime:read'],
    summary: 'Read every zone rule in the spec structures',
    tag: 'Maritime',
    responses: { 200: { description: 'The rules document', schema: dataOf(maritimeRulesSchema) } },
    handler: async ({ ctx, res }) => {
      sendData(res, 200, await allRules(ctx.pool));
    },
  }),
  defineRoute({
    method: 'put',
    path: '/maritime/rules',
    scopes: ['maritime:write'],
    summary: 'Replace every zone rule (and the site-wide dwell_time) with a document in the spec structures',
    description: 'Entries name their zone by name; an unknown zone, two entries of one kind for a zone, or a party or gate of `alert_rules` the system configuration does not name, is a 422 and nothing changes. Zones the document does not name are left without rules.',
    tag: 'Maritime',
    body: maritimeRulesSchema,
    check: alertRuleCheck('bulk'),
    bodyLimit: 4 * 1024 * 1024,
    responses: { 200: { description: 'The rules document as stored', schema: dataOf(maritimeRulesSchema) } },
    handler: async ({ ctx, body, res }) => {
      const problems = await replaceAllRules(ctx.pool, body, namesGuard(body, 'bulk'));
      if (problems.length > 0) refuse(problems);
      sendData(res, 200, await allRules(ctx.pool));
    },
  }),
];
