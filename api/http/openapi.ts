import type { JSONSchema } from 'json-schema-to-ts';
import type { Config } from '../../platform/config.ts';
import { SCOPE_GRANTS, oauthErrorSchema, tokenResponseSchema } from '../../schemas/auth.ts';
import { errorBodySchema } from '../../schemas/common.ts';
import { defineRoute, openApiPath, type RouteDef } from './routes.ts';

/**
 * The OpenAPI 3.1 document, generated from the route definitions and the schemas they use, plus the
 * OAuth endpoints that live at {auth_url}. Served at /v1/openapi.json; `pss openapi` prints it.
 */

type Json = Record<string, unknown>;

export function openApiDocument(routes: RouteDef[], config: Pick<Config, 'publicUrl' | 'authUrl'>): Json {
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    paths[path] = { ...paths[path], [route.method]: operation(route) };
  }
  Object.assign(paths, oauthPaths(config.authUrl));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Port Security Service API',
      version: '1.0.0',
      description: 'Gate transactions, maritime threat zones, security events and webhooks. Every request except this document is authenticated with `Authorization: Bearer <API key or OAuth access token>`; see `x-required-scopes` on each operation.',
    },
    servers: [{ url: config.publicUrl }],
    tags: [...new Set(routes.map((r) => r.tag))].sort().map((name) => ({ name })),
    paths,
    components: {
      schemas: { Error: toOpenApi(errorBodySchema) },
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'An API key (svc_live_, svc_test_ or svc_dev_ prefix by environment).' },
        oauth: {
          type: 'oauth2',
          description: 'OAuth 2.0 authorization code flow (PKCE S256; required for public clients). Access tokens svc_oauth_..., refresh tokens svc_refresh_....',
          flows: {
            authorizationCode: {
              authorizationUrl: `${config.authUrl}/oauth/authorize`,
              tokenUrl: `${config.authUrl}/oauth/token`,
              refreshUrl: `${config.authUrl}/oauth/token`,
              scopes: SCOPE_GRANTS,
            },
          },
        },
      },
      responses: Object.fromEntries(
        Object.entries(STANDARD_ERRORS).map(([status, description]) => [`E${status}`, { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } }]),
      ),
    },
  };
}

const STANDARD_ERRORS: Record<number, string> = {
  400: 'Malformed request (invalid_json, bad_request)',
  401: 'Missing, invalid, revoked or expired credential (unauthorized)',
  403: 'The credential lacks the scope, or the caller address is not in the key\'s IP allowlist (forbidden)',
  404: 'No such resource or route (not_found)',
  405: 'Method not allowed on this path (method_not_allowed)',
  409: 'The resource is in a state that does not allow this (resource_conflict)',
  413: 'Body larger than the limit (payload_too_large)',
  415: 'Body is not application/json (unsupported_media_type)',
  422: 'Body, query or path parameters fail the schema (validation_error; details lists every problem)',
  429: 'Rate limit exceeded (rate_limited); see Retry-After',
  500: 'Internal error (internal_error)',
};

function operation(route: RouteDef): Json {
  const errors = [400, 404, 429, 500];
  if (!route.public) errors.push(401, 403);
  if (route.body) errors.push(413, 415, 422);
  if (route.query || route.params) errors.push(422);
  const responses: Record<string, Json> = {};
  for (const [status, spec] of Object.entries(route.responses)) {
    responses[status] = spec.schema === undefined
      ? { description: spec.description }
      : { description: spec.description, content: { [spec.contentType ?? 'application/json']: { schema: toOpenApi(spec.schema) } } };
  }
  for (const status of errors.sort()) responses[String(status)] ??= { $ref: `#/components/responses/E${status}` };
  return {
    operationId: operationId(route),
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.tag],
    'x-required-scopes': route.public ? [] : route.scopes,
    security: route.public ? [] : [{ apiKey: [] }, { oauth: [...route.scopes] }],
    ...parameters(route),
    ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: toOpenApi(route.body) } } } } : {}),
    responses,
  };
}

function parameters(route: RouteDef): Json {
  const out: Json[] = [];
  const pathNames = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1] as string);
  const paramProps = propertiesOf(route.params);
  for (const name of pathNames) out.push({ name, in: 'path', required: true, schema: toOpenApi(paramProps[name] ?? { type: 'string' }) });
  const required = new Set(requiredOf(route.query));
  for (const [name, schema] of Object.entries(propertiesOf(route.query))) {
    out.push({ name, in: 'query', required: required.has(name), schema: toOpenApi(schema) });
  }
  return out.length > 0 ? { parameters: out } : {};
}

function propertiesOf(schema: JSONSchema | undefined): Record<string, JSONSchema> {
  return typeof schema === 'object' && schema !== null && 'properties' in schema ? ((schema.properties ?? {}) as Record<string, JSONSchema>) : {};
}

function requiredOf(schema: JSONSchema | undefined): readonly string[] {
  return typeof schema === 'object' && schema !== null && 'required' in schema ? (schema.required ?? []) : [];
}

function operationId(route: RouteDef): string {
  const words = route.path.split(/[/_-]/).filter(Boolean).map((w) => (w.startsWith(':') ? `by_${w.slice(1)}` : w));
  return [route.method, ...words].map((w, i) => (i === 0 ? w : w.replace(/(^|_)(\w)/g, (_m, _s, c: string) => c.toUpperCase()))).join('');
}

/**
 * Our schemas are written in the draft-07 dialect ajv validates; OpenAPI 3.1 uses JSON Schema 2020-12.
 * The differences we use: tuples (`items: [..]` + `additionalItems` become `prefixItems` + `items`), and
 * `dependencies` naming required fields, which 2020-12 calls `dependentRequired`.
 */
export function toOpenApi(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toOpenApi);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$schema' || key === '$id') continue;
    if (key === 'items' && Array.isArray(value)) out.prefixItems = value.map(toOpenApi);
    else if (key === 'additionalItems') out.items = toOpenApi(value);
    else if (key === 'dependencies' && Object.values(value as object).every(Array.isArray)) out.dependentRequired = value;
    else out[key] = toOpenApi(value);
  }
  return out;
}

function oauthPaths(authUrl: string): Record<string, Json> {
  const servers = [{ url: authUrl }];
  const form = (props: Record<string, Json>, required: string[]) => ({
    required: true,
    content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', required, properties: props } } },
  });
  const str = { type: 'string' };
  return {
    '/oauth/authorize': {
      servers,
      get: {
        operationId: 'oauthAuthorize',
        summary: 'Authorization endpoint: login and consent page (HTML); redirects to redirect_uri with code and state',
        tags: ['OAuth'],
        security: [],
        parameters: ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method'].map((name) => ({
          name, in: 'query', required: ['response_type', 'client_id', 'redirect_uri', 'state'].includes(name), schema: str,
        })),
        responses: {
          200: { description: 'Login and consent form', content: { 'text/html': { schema: str } } },
          302: { description: 'Redirect to redirect_uri with code and state, or with an RFC 6749 error' },
          400: { description: 'Unknown client or redirect_uri not registered (not redirected)', content: { 'text/html': { schema: str } } },
        },
      },
    },
    '/oauth/token': {
      servers,
      post: {
        operationId: 'oauthToken',
        summary: 'Token endpoint: authorization code exchange and refresh (client credentials in the body or HTTP Basic)',
        tags: ['OAuth'],
        security: [],
        requestBody: form(
          { grant_type: { type: 'string', enum: ['authorization_code', 'refresh_token'] }, code: str, redirect_uri: str, code_verifier: str, refresh_token: str, client_id: str, client_secret: str },
          ['grant_type'],
        ),
        responses: {
          200: { description: 'Token response', content: { 'application/json': { schema: toOpenApi(tokenResponseSchema) } } },
          400: { description: 'RFC 6749 error', content: { 'application/json': { schema: toOpenApi(oauthErrorSchema) } } },
          401: { description: 'invalid_client with HTTP Basic credentials', content: { 'application/json': { schema: toOpenApi(oauthErrorSchema) } } },
          429: { description: 'Too many requests for this client', content: { 'application/json': { schema: toOpenApi(oauthErrorSchema) } } },
        },
      },
    },
  };
}

/** The OpenAPI document as a route; it closes over the full route list, itself included. */
export function openApiRoute(routes: RouteDef[], config: Pick<Config, 'publicUrl' | 'authUrl'>): RouteDef {
  let cached: Json | undefined;
  return defineRoute({
    method: 'get',
    path: '/openapi.json',
    scopes: [],
    public: true,
    summary: 'This OpenAPI 3.1 document',
    tag: 'Meta',
    responses: { 200: { description: 'OpenAPI 3.1 document', schema: { type: 'object' } } },
    handler: ({ res }) => {
      cached ??= openApiDocument(routes, config);
      res.json(cached);
    },
  });
}

/** Markdown for docs/api.md "Scopes": the scope list, then every endpoint with the scopes that admit it. */
export function scopeTable(routes: RouteDef[]): string {
  const scopes = ['| Scope | Grants |', '|---|---|', ...Object.entries(SCOPE_GRANTS).map(([s, g]) => `| \`${s}\` | ${g} |`)];
  const sorted = [...routes].sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
  const endpoints = [
    '| Method | Path | Scopes (any one; `admin` always) | Purpose |',
    '|---|---|---|---|',
    ...sorted.map((r) => `| ${r.method.toUpperCase()} | \`${openApiPath(r.path)}\` | ${scopesCell(r)} | ${r.summary} |`),
  ];
  return [...scopes, '', ...endpoints].join('\n');
}

function scopesCell(route: RouteDef): string {
  if (route.public) return 'none (public)';
  if (route.scopes.length === 0) return 'any valid credential';
  return route.scopes.map((s) => `\`${s}\``).join(', ');
}

