/**
 * The route registry: every /v1 endpoint is one `defineRoute(...)` value, and this list is the single
 * scope table. From it come the express routes (authentication, rate limit, scope check, body
 * parsing, validation, handler, in that order), the OpenAPI document at /v1/openapi.json, and the
 * scope table of docs/api.md "Scopes" (`pss scopes`).
 *
 * How a feature adds endpoints:
 *
 *   // api/zones/routes.ts
 *   export const zoneRoutes = [
 *     defineRoute({
 *       method: 'post', path: '/maritime/zones',          // express syntax, relative to /v1
 *       scopes: ['maritime:write'],                       // any one of them; `admin` always passes
 *       summary: 'Create a threat zone', tag: 'Maritime',
 *       body: zoneSchema,                                 // a schema from schemas/ (ajv validates -> 422)
 *       // query: {...}, params: {...}                    // optional schemas for the query and path params
 *       responses: { 201: { description: 'Created', schema: dataOf(zoneSchema) } },   // for OpenAPI
 *       handler: async ({ ctx, body, principal, res }) => { ... res.status(201).json({ data }) },
 *     }),
 *   ];
 *
 *   // the feature's entry in app/features.ts
 *   { name: 'zones', routes: zoneRoutes, ... }
 *
 * `body`, `query` and `params` in the handler are typed from the schemas (json-schema-to-ts), already
 * validated, with defaults applied and query/params coerced to the schema types. Bodies are JSON up
 * to 1 MiB (`bodyLimit` to change it; a larger declared Content-Length is refused before reading). Before
 * any schema, every route refuses what api/http/input-limits.ts describes: JSON nested deeper than
 * MAX_JSON_DEPTH, NUL and unpaired surrogates in any body string, control characters in path
 * parameters and the query. A route without `body` that reads one itself (ingest) uses the same
 * functions. Helpers `sendData` / `sendList` write the spec's `data` /
 * `data + meta + pagination` shapes (schemas/common.ts has `dataOf`, `listOf`, `pageQueryProperties`).
 * `check` adds rules the schemas cannot express to the same 422 (every problem in one answer); it may be
 * async and read the database through `ctx` (e.g. names that must exist in a stored configuration).
 * Throw AppError for failures (platform/errors.ts); the error handler writes the spec's error body. `scopes: []` means
 * any valid credential; `public: true` means no credential at all (only the OpenAPI document).
 * For rules beyond the route's scopes (e.g. overriding a rejected transaction needs admin), call
 * `requireScope(principal, 'admin')` in the handler.
 */
import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { ServiceContext } from '../../platform/context.ts';
import { AppError } from '../../platform/errors.ts';
import type { Scope } from '../../schemas/auth.ts';
import { createAuthenticator, type Authenticator } from '../auth/authenticate.ts';
import { ANONYMOUS, allows, hasScope, type Principal } from '../auth/principal.ts';
import { pagination } from '../../schemas/common.ts';
import { clientAddressResolver } from './client-ip.ts';
import { jsonBodyParser, textProblems } from './input-limits.ts';
import { RateLimiter } from './rate-limit.ts';
import { compile, problems, validationError, type Location, type Problem } from './validation.ts';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** Default JSON body limit; larger bodies get 413 payload_too_large. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

type Infer<S> = [S] extends [JSONSchema] ? FromSchema<S> : undefined;

export interface RouteCall<B, Q, P> {
  ctx: ServiceContext;
  principal: Principal;
  body: B;
  query: Q;
  params: P;
  requestId: string;
  req: Request;
  res: Response;
}

export interface ResponseSpec {
  description: string;
  schema?: JSONSchema;
  contentType?: string;
}

export interface RouteSpec<B extends JSONSchema | undefined, Q extends JSONSchema | undefined, P extends JSONSchema | undefined> {
  method: HttpMethod;
  /** Express path syntax relative to /v1, e.g. '/auth/api-keys/:key_id'. */
  path: string;
  /** Any one of these grants access; `admin` grants everything; [] = any valid credential. */
  scopes: readonly Scope[];
  /** No credential needed (the OpenAPI document only). */
  public?: boolean;
  summary: string;
  description?: string;
  tag: string;
  body?: B;
  query?: Q;
  params?: P;
  /** Body size limit in bytes; default BODY_LIMIT_BYTES. */
  bodyLimit?: number;
  /**
   * Rules the schemas cannot express, checked in the same pass as them so one 422 lists every problem.
   * Gets the input as sent (it may have failed its schema), so it must not assume its shape. Runs after
   * authentication and the scope check, so a database read here is never an unauthenticated client's.
   */
  check?: RouteCheck;
  responses: Record<number, ResponseSpec>;
  handler: (call: RouteCall<Infer<B>, Infer<Q>, Infer<P>>) => unknown;
}

export interface CheckInput {
  body: unknown;
  query: unknown;
  params: unknown;
}

export type RouteCheck = (input: CheckInput, ctx: ServiceContext) => Problem[] | Promise<Problem[]>;

/** A route with its types erased, as kept in lists. */
export interface RouteDef {
  method: HttpMethod;
  path: string;
  scopes: readonly Scope[];
  public?: boolean;
  summary: string;
  description?: string;
  tag: string;
  body?: JSONSchema;
  query?: JSONSchema;
  params?: JSONSchema;
  bodyLimit?: number;
  check?: RouteCheck;
  responses: Record<number, ResponseSpec>;
  handler: (call: RouteCall<never, never, never>) => unknown;
}

export function defineRoute<
  const B extends JSONSchema | undefined = undefined,
  const Q extends JSONSchema | undefined = undefined,
  const P extends JSONSchema | undefined = undefined,
>(spec: RouteSpec<B, Q, P>): RouteDef {
  return spec as unknown as RouteDef;
}

/** For rules finer than a route's scopes. */
export function requireScope(principal: Principal, scope: Scope): void {
  if (!hasScope(principal, scope)) throw new AppError('forbidden', `This action requires the ${scope} scope`);
}

/** Spec "Conventions": a single resource under `data`. */
export function sendData(res: Response, status: number, data: unknown): void {
  res.status(status).json({ data });
}

/** Spec "Conventions": a list with `data`, `meta` and `pagination`. */
export function sendList(res: Response, data: unknown[], page: number, perPage: number, totalItems: number): void {
  res.status(200).json({
    data,
    meta: { request_id: String(res.locals.requestId), timestamp: new Date().toISOString() },
    pagination: pagination(page, perPage, totalItems),
  });
}

export const openApiPath = (path: string) => `/v1${path.replace(/:(\w+)/g, '{$1}')}`;

/** Mounts every route under /v1; unknown paths fall through to the app's 404, wrong methods get 405. */
export function v1Router(ctx: ServiceContext, routes: RouteDef[], authenticate: Authenticator = createAuthenticator(ctx)): Router {
  assertUnique(routes);
  const router = Router();
  const limiter = new RateLimiter({ burst: ctx.config.rateLimitBurst, perSecond: ctx.config.rateLimitPerSecond });
  const clientAddress = clientAddressResolver(ctx.config.trustedProxy);
  for (const route of routes) {
    router[route.method](`/v1${route.path}`, ...chain(ctx, route, authenticate, limiter, clientAddress));
  }
  for (const [path, methods] of methodsByPath(routes)) {
    router.all(`/v1${path}`, (req, res, next) => {
      res.setHeader('Allow', methods.map((m) => m.toUpperCase()).join(', '));
      next(new AppError('method_not_allowed', `${req.method} is not allowed on ${req.path}; allowed: ${methods.join(', ').toUpperCase()}`));
    });
  }
  return router;
}

function chain(
  ctx: ServiceContext,
  route: RouteDef,
  authenticate: Authenticator,
  limiter: RateLimiter,
  clientAddress: ReturnType<typeof clientAddressResolver>,
): RequestHandler[] {
  const validators = compileValidators(route);
  const identify: RequestHandler = async (req, res, next) => {
    const principal = route.public ? ANONYMOUS : await authenticate(req);
    res.locals.principal = principal;
    req.log = req.log?.child({ credential: principal.credentialId });
    const key = route.public ? `ip:${clientAddress(req.socket.remoteAddress, req.header('x-forwarded-for'))}` : principal.credentialId;
    const decision = limiter.take(key);
    if (!decision.allowed) {
      throw new AppError('rate_limited', `Rate limit exceeded; retry after ${decision.retryAfterSeconds} s`, { retry_after_seconds: decision.retryAfterSeconds });
    }
    if (!allows(principal, route.scopes)) {
      throw new AppError('forbidden', `This endpoint requires one of the scopes: ${route.scopes.join(', ')}`);
    }
    next();
  };
  const handlers: RequestHandler[] = [identify];
  if (route.body) handlers.push(requireJson, jsonBodyParser(route.bodyLimit ?? BODY_LIMIT_BYTES));
  handlers.push(async (req, res) => {
    const params = { ...req.params };
    const query = { ...(req.query as Record<string, unknown>) };
    // No body at all is validated as {}; a body of `null` (or any other JSON value) is validated as sent.
    const body: unknown = route.body ? (req.body === undefined ? {} : req.body) : undefined;
    const found: Problem[] = [...textProblems('params', params), ...textProblems('query', query), ...(route.body ? textProblems('body', body) : [])];
    validators.params?.check(params, found);
    validators.query?.check(query, found);
    validators.body?.check(body, found);
    if (route.check) found.push(...(await route.check({ body, query, params }, ctx)));
    if (found.length > 0) throw validationError(found);
    const call: RouteCall<unknown, unknown, unknown> = {
      ctx, principal: res.locals.principal as Principal, body, query, params, requestId: String(res.locals.requestId), req, res,
    };
    await (route.handler as (c: RouteCall<unknown, unknown, unknown>) => unknown)(call);
  });
  return handlers;
}

/** 415 unless a request that carries a body says it is JSON. A request without a body is validated as `{}`. */
const requireJson: RequestHandler = (req, _res, next) => {
  const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  if (hasBody && !req.is('application/json') && !req.is('application/*+json')) {
    throw new AppError('unsupported_media_type', `Request body must be application/json, got ${req.headers['content-type'] ?? 'no Content-Type'}`);
  }
  next();
};

interface Validator {
  check(value: unknown, into: Problem[]): void;
}

function compileValidators(route: RouteDef): Partial<Record<Location, Validator>> {
  const out: Partial<Record<Location, Validator>> = {};
  for (const location of ['params', 'query', 'body'] as const) {
    const schema = route[location];
    if (schema === undefined) continue;
    const validate = compile(location, schema as object);
    out[location] = {
      check: (value, into) => {
        if (!validate(value)) into.push(...problems(location, validate.errors));
      },
    };
  }
  return out;
}

function methodsByPath(routes: RouteDef[]): Map<string, HttpMethod[]> {
  const map = new Map<string, HttpMethod[]>();
  for (const r of routes) map.set(r.path, [...(map.get(r.path) ?? []), r.method]);
  return map;
}

function assertUnique(routes: RouteDef[]): void {
  const seen = new Set<string>();
  for (const r of routes) {
    const key = `${r.method} ${openApiPath(r.path).replace(/\{\w+\}/g, '{}')}`;
    if (seen.has(key)) throw new Error(`Route defined twice: ${r.method.toUpperCase()} /v1${r.path}`);
    seen.add(key);
  }
}
