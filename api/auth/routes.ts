import { AppError } from '../../platform/errors.ts';
import {
  OAUTH_CLIENT_ID_PATTERN, apiKeyCreateSchema, apiKeyCreatedSchema, apiKeyIdParamsSchema, apiKeySchema, introspectionSchema,
  oauthClientCreateSchema, oauthClientCreatedSchema, oauthClientSchema,
} from '../../schemas/auth.ts';
import { dataOf, listOf, pageQueryProperties } from '../../schemas/common.ts';
import { defineRoute, sendData, sendList } from '../http/routes.ts';
import { createApiKey, listApiKeys, revokeApiKey } from './api-keys.ts';
import { clientView, registerClient } from './clients.ts';
import { listClients, revokeClient } from './oauth-store.ts';
import { operatorRoutes } from './operator-routes.ts';

/** Spec "API keys and tokens": /v1/auth/*. Credential management is admin-only. */

const pageQuery = { type: 'object', additionalProperties: false, properties: pageQueryProperties } as const;
const clientIdParams = { type: 'object', required: ['client_id'], properties: { client_id: { type: 'string', pattern: OAUTH_CLIENT_ID_PATTERN } } } as const;

export const authRoutes = [
  defineRoute({
    method: 'post',
    path: '/auth/api-keys',
    scopes: ['admin'],
    summary: 'Create an API key (the secret is returned once, in this response only)',
    tag: 'Auth',
    body: apiKeyCreateSchema,
    responses: { 201: { description: 'The new key, with its secret', schema: dataOf(apiKeyCreatedSchema) } },
    handler: async ({ ctx, body, principal, req, res }) => {
      const key = await createApiKey(ctx.pool, ctx.config.environment, body, `${principal.kind}:${principal.credentialId}`);
      req.log.info({ key_id: key.id, scopes: key.scopes, created_by: principal.credentialId }, 'api key created');
      sendData(res, 201, key);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/auth/api-keys',
    scopes: ['admin'],
    summary: 'List API keys that are not revoked (never their secrets)',
    tag: 'Auth',
    query: pageQuery,
    responses: { 200: { description: 'Keys', schema: listOf(apiKeySchema) } },
    handler: async ({ ctx, query, res }) => {
      const { items, total } = await listApiKeys(ctx.pool, query.page, query.per_page);
      sendList(res, items, query.page, query.per_page, total);
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/auth/api-keys/:key_id',
    scopes: ['admin'],
    summary: 'Revoke an API key; the very next request with it gets 401',
    tag: 'Auth',
    params: apiKeyIdParamsSchema,
    responses: { 204: { description: 'Revoked (also when it already was)' } },
    handler: async ({ ctx, params, principal, req, res }) => {
      if (!(await revokeApiKey(ctx.pool, params.key_id))) throw new AppError('not_found', `No API key ${params.key_id}`);
      req.log.info({ key_id: params.key_id, revoked_by: principal.credentialId }, 'api key revoked');
      res.status(204).end();
    },
  }),
  defineRoute({
    method: 'get',
    path: '/auth/introspect',
    scopes: [],
    summary: 'Describe the credential used in this request',
    description: 'token_type is `oauth` for an OAuth access token and `api_key` for an API key; client_id is the application client_id or the key id. An invalid credential never gets here (401), so active is always true.',
    tag: 'Auth',
    responses: { 200: { description: 'Introspection result', schema: dataOf(introspectionSchema) } },
    handler: ({ principal, res }) => {
      sendData(res, 200, {
        active: true,
        scopes: principal.scopes,
        expires_at: principal.expiresAt?.toISOString() ?? null,
        client_id: principal.clientId,
        token_type: principal.kind === 'oauth' ? 'oauth' : 'api_key',
        subject: principal.subject,
      });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/auth/oauth-clients',
    scopes: ['admin'],
    summary: 'Register an OAuth application (client_secret is returned once, in this response only)',
    tag: 'Auth',
    body: oauthClientCreateSchema,
    responses: { 201: { description: 'The registered application', schema: dataOf(oauthClientCreatedSchema) } },
    handler: async ({ ctx, body, req, res }) => {
      const client = await registerClient(ctx.pool, body);
      req.log.info({ client_id: client.client_id }, 'oauth client registered');
      sendData(res, 201, client);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/auth/oauth-clients',
    scopes: ['admin'],
    summary: 'List registered OAuth applications (never their secrets)',
    tag: 'Auth',
    query: pageQuery,
    responses: { 200: { description: 'Applications', schema: listOf(oauthClientSchema) } },
    handler: async ({ ctx, query, res }) => {
      const { items, total } = await listClients(ctx.pool, query.page, query.per_page);
      sendList(res, items.map(clientView), query.page, query.per_page, total);
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/auth/oauth-clients/:client_id',
    scopes: ['admin'],
    summary: 'Remove an OAuth application and revoke every token issued to it',
    tag: 'Auth',
    params: clientIdParams,
    responses: { 204: { description: 'Removed' } },
    handler: async ({ ctx, params, res }) => {
      if (!(await revokeClient(ctx.pool, params.client_id))) throw new AppError('not_found', `No OAuth application ${params.client_id}`);
      res.status(204).end();
    },
  }),
  ...operatorRoutes,
];
