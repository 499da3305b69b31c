import { AppError } from '../../platform/errors.ts';
import {
  operatorChangeRecordSchema, operatorChangeSchema, operatorIdParamsSchema, operatorPasswordSchema, operatorSchema,
} from '../../schemas/auth.ts';
import { dataOf, listOf, pageQueryProperties } from '../../schemas/common.ts';
import { defineRoute, sendData, sendList } from '../http/routes.ts';
import { listChanges, listOperators, readOperator, resetPassword, updateOperator, type ChangeAuthor } from './operators.ts';
import type { Principal } from './principal.ts';
import { hashPassword } from './secrets.ts';

/** Operator administration (issue 34, item 6): /v1/auth/operators, admin only, every change audited (operators.ts). */

const pageQuery = { type: 'object', additionalProperties: false, properties: pageQueryProperties } as const;

function authorOf(principal: Principal): ChangeAuthor {
  return { credentialId: principal.credentialId, principal: principal.subject, kind: principal.kind === 'oauth' ? 'oauth' : 'api_key' };
}

export const operatorRoutes = [
  defineRoute({
    method: 'get',
    path: '/auth/operators',
    scopes: ['admin'],
    summary: 'List operator accounts, disabled ones too (never their passwords)',
    tag: 'Auth',
    query: pageQuery,
    responses: { 200: { description: 'Operators by username', schema: listOf(operatorSchema) } },
    handler: async ({ ctx, query, res }) => {
      const { items, total } = await listOperators(ctx.pool, query.page, query.per_page);
      sendList(res, items, query.page, query.per_page, total);
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/auth/operators/:operator_id',
    scopes: ['admin'],
    summary: "Change an operator's scopes, or disable or enable the account; revokes the operator's tokens",
    description: 'A scope change and a disable revoke every token of the operator at once (they sign in again). An admin signed in through OAuth cannot disable their own account or take admin from it (409).',
    tag: 'Auth',
    params: operatorIdParamsSchema,
    body: operatorChangeSchema,
    responses: { 200: { description: 'The operator as now stored', schema: dataOf(operatorSchema) } },
    handler: async ({ ctx, params, body, principal, req, res }) => {
      const target = await readOperator(ctx.pool, params.operator_id);
      if (!target) throw new AppError('not_found', `No operator ${params.operator_id}`);
      // An admin locking themselves out leaves nobody signed in to undo it from the console.
      const self = principal.kind === 'oauth' && principal.subject === target.username;
      if (self && (body.disabled === true || (body.scopes !== undefined && !body.scopes.includes('admin')))) {
        throw new AppError('resource_conflict', 'You cannot disable your own account or take admin from it; ask another administrator');
      }
      const stored = await updateOperator(ctx.pool, params.operator_id, body, authorOf(principal));
      if (!stored) throw new AppError('not_found', `No operator ${params.operator_id}`);
      req.log.info({ operator_id: stored.id, scopes: stored.scopes, disabled: stored.disabled_at !== null, changed_by: principal.credentialId }, 'operator changed');
      sendData(res, 200, stored);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/auth/operators/:operator_id/password',
    scopes: ['admin'],
    summary: "Reset an operator's password; every token of theirs is revoked",
    tag: 'Auth',
    params: operatorIdParamsSchema,
    body: operatorPasswordSchema,
    responses: { 204: { description: 'Reset' } },
    handler: async ({ ctx, params, body, principal, req, res }) => {
      if (!(await readOperator(ctx.pool, params.operator_id))) throw new AppError('not_found', `No operator ${params.operator_id}`);
      if (!(await resetPassword(ctx.pool, params.operator_id, await hashPassword(body.password), authorOf(principal)))) {
        throw new AppError('not_found', `No operator ${params.operator_id}`);
      }
      req.log.info({ operator_id: params.operator_id, changed_by: principal.credentialId }, 'operator password reset');
      res.status(204).end();
    },
  }),
  defineRoute({
    method: 'get',
    path: '/auth/operators/:operator_id/changes',
    scopes: ['admin'],
    summary: "An operator account's audited changes (who, when, what), newest first",
    tag: 'Auth',
    params: operatorIdParamsSchema,
    query: pageQuery,
    responses: { 200: { description: 'Changes', schema: listOf(operatorChangeRecordSchema) } },
    handler: async ({ ctx, params, query, res }) => {
      if (!(await readOperator(ctx.pool, params.operator_id))) throw new AppError('not_found', `No operator ${params.operator_id}`);
      const { items, total } = await listChanges(ctx.pool, params.operator_id, query.page, query.per_page);
      sendList(res, items, query.page, query.per_page, total);
    },
  }),
];
