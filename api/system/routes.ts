// System configuration endpoints (issue 23, item 2): what each alert level does by default, the parties
// of an escalation, the gates alert rules may lock, the incident windows. The rules live in
// response/settings/; these routes read the request and answer.
import { parseInstant } from '../../events/event-filter.ts';
import { listSystemConfigChanges, readSystemConfig, replaceSystemConfig, type ConfigAuthor } from '../../response/settings/system-config-store.ts';
import { dataOf, listOf } from '../../schemas/common.ts';
import { systemConfigChangeSchema, systemConfigChangesQuerySchema, systemConfigPutResponseSchema, systemConfigSchema } from '../../schemas/system-config.ts';
import type { Principal } from '../auth/principal.ts';
import { defineRoute, sendData, sendList, type RouteDef } from '../http/routes.ts';
import { validationError, type Problem } from '../http/validation.ts';

function authorOf(principal: Principal): ConfigAuthor {
  return { credentialId: principal.credentialId, principal: principal.subject, kind: principal.kind === 'oauth' ? 'oauth' : 'api_key' };
}

const DATE_FIELDS = ['start_date', 'end_date'] as const;

/** Dates as GET /v1/events reads them; start after end is a problem too. */
function dateProblems(query: unknown): Problem[] {
  const q = (typeof query === 'object' && query !== null ? query : {}) as Record<string, unknown>;
  const problems: Problem[] = [];
  const at: Partial<Record<(typeof DATE_FIELDS)[number], Date>> = {};
  for (const name of DATE_FIELDS) {
    if (typeof q[name] !== 'string') continue;
    const instant = parseInstant(q[name] as string);
    if (instant === undefined) problems.push({ location: 'query', path: `/${name}`, message: 'must be an ISO 8601 date or date-time, e.g. 2026-11-21 or 2026-11-21T07:00:00Z' });
    else at[name] = instant;
  }
  if (at.start_date && at.end_date && at.start_date > at.end_date) {
    problems.push({ location: 'query', path: '/start_date', message: `must not be after end_date (${at.end_date.toISOString()})` });
  }
  return problems;
}

export const systemConfigRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/system/config',
    scopes: ['system:read'],
    summary: 'Read the system configuration',
    description: 'What each alert level does by default, the parties of an escalation, the gates alert rules may lock and the incident windows. The shipped defaults until the first PUT.',
    tag: 'System',
    responses: { 200: { description: 'The configuration in force', schema: dataOf(systemConfigSchema) } },
    handler: async ({ ctx, res }) => {
      sendData(res, 200, await readSystemConfig(ctx.pool));
    },
  }),
  defineRoute({
    method: 'put',
    path: '/system/config',
    scopes: ['system:write'],
    summary: 'Replace the system configuration',
    description:
      'The whole document. Refused with one 422 listing every problem: ids given twice, escalation_order naming an undefined party, a webhook id that does not exist, a party or gate removed while a zone\'s alert_rules (or a dwell ladder) still names it. Every change is kept (GET /v1/system/config/changes); running instances use it within moments, without a restart. A document equal to the one in force changes nothing. Stored documents are answered with `warnings` beside `data`: a party an escalation can reach that has no receiver (no active webhook) is party_without_receiver, since its escalations would reach nobody.',
    tag: 'System',
    body: systemConfigSchema,
    responses: { 200: { description: 'The configuration as stored, and what is worth knowing about it', schema: systemConfigPutResponseSchema } },
    handler: async ({ ctx, body, principal, res }) => {
      const outcome = await replaceSystemConfig(ctx.pool, body, authorOf(principal));
      if (outcome.problems !== undefined) throw validationError(outcome.problems.map((p) => ({ location: 'body', ...p })));
      res.status(200).json({ data: outcome.stored.config, warnings: outcome.warnings });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/system/config/changes',
    scopes: ['system:read'],
    summary: 'List the changes of the system configuration',
    description: 'Who (credential, principal, kind of credential), when, the document before and after; newest first.',
    tag: 'System',
    query: systemConfigChangesQuerySchema,
    check: ({ query }) => dateProblems(query),
    responses: { 200: { description: 'One page of changes', schema: listOf(systemConfigChangeSchema) } },
    handler: async ({ ctx, query, res }) => {
      const start = query.start_date === undefined ? undefined : parseInstant(query.start_date);
      const end = query.end_date === undefined ? undefined : parseInstant(query.end_date);
      const { changes, total } = await listSystemConfigChanges(ctx.pool, { start, end, page: query.page, perPage: query.per_page });
      sendList(res, changes, query.page, query.per_page, total);
    },
  }),
];
