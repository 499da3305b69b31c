import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import OAuth2Server from '@node-oauth/oauth2-server';
import express, { Router, type ErrorRequestHandler, type Request, type Response } from 'express';
import type { ServiceContext } from '../../platform/context.ts';
import { counter } from '../../platform/metrics.ts';
import { GRANT_TYPES } from '../../schemas/auth.ts';
import { clientAddressResolver } from '../http/client-ip.ts';
import { RateLimiter } from '../http/rate-limit.ts';
import { authorizePreflight, redirectWithError, type Preflight } from './authorize-request.ts';
import { CSRF_COOKIE, FORM_TOKEN_SECONDS, HTML_HEADERS, consentPage, errorPage, formToken, formTokenValid, newNonce } from './consent-page.ts';
import { failureThrottle } from './failure-throttle.ts';
import { LIFETIMES, grantableScopes, oauthModel, type Operator } from './oauth-model.ts';
import { findOperator, sharedSecret } from './oauth-store.ts';
import { decoyPasswordHash, verifyPassword } from './secrets.ts';

/**
 * The OAuth 2.0 authorization server (spec "Authentication" 6, "Token response"), mounted under the
 * path of PSS_AUTH_URL: GET/POST {auth_url}/oauth/authorize (login and consent page) and POST
 * {auth_url}/oauth/token. @node-oauth/oauth2-server does the grant work; this file is the HTTP
 * adapter plus what the library leaves to the application (the login page, exact redirect_uri
 * mismatch as invalid_grant, PKCE required for public clients, no `scope` in refresh responses).
 */

const requireCjs = createRequire(import.meta.url);
type GrantRequest = { body: Record<string, string | undefined> };
type CodeGrantClass = new (options: object) => { validateRedirectUri(request: GrantRequest, code: { redirectUri?: string }): void };
const AuthorizationCodeGrantType = requireCjs('@node-oauth/oauth2-server/lib/grant-types/authorization-code-grant-type.js') as CodeGrantClass;

/** RFC 6749 5.2: a redirect_uri that differs from the authorization request's is invalid_grant (the library says invalid_request). */
class ExactRedirectCodeGrant extends AuthorizationCodeGrantType {
  override validateRedirectUri(request: GrantRequest, code: { redirectUri?: string }): void {
    const given = request.body.redirect_uri;
    if (!given) throw new OAuth2Server.InvalidRequestError('Missing parameter: `redirect_uri`');
    if (given !== code.redirectUri) throw new OAuth2Server.InvalidGrantError('Invalid grant: `redirect_uri` does not match the authorization request');
  }
}

const tokenRequests = counter('pss_oauth_token_requests_total', 'Token endpoint calls by grant type and outcome', ['grant_type', 'outcome']);

export function oauthRouter(ctx: ServiceContext): Router {
  const { pool, log, config } = ctx;
  const base = `${new URL(config.authUrl).pathname.replace(/\/$/, '')}/oauth`;
  const secureCookie = config.authUrl.startsWith('https:');
  const authorizeServer = new OAuth2Server({
    model: oauthModel(pool, log, 'authorize'),
    authorizationCodeLifetime: LIFETIMES.authorizationCodeSeconds,
    allowEmptyState: false,
  });
  const tokenServer = new OAuth2Server({
    model: oauthModel(pool, log, 'token'),
    accessTokenLifetime: LIFETIMES.accessTokenSeconds,
    refreshTokenLifetime: LIFETIMES.refreshTokenSeconds,
    alwaysIssueNewRefreshToken: true,
    // The model decides: confidential clients must present their secret, public clients have none.
    requireClientAuthentication: { authorization_code: false, refresh_token: false },
    extendedGrantTypes: { authorization_code: ExactRedirectCodeGrant as unknown as typeof OAuth2Server.AbstractGrantType },
  });
  const loginLimiter = new RateLimiter({ burst: config.loginAttemptsPerMinute, perSecond: config.loginAttemptsPerMinute / 60 });
  const tokenLimiter = new RateLimiter({ burst: config.rateLimitBurst, perSecond: config.rateLimitPerSecond });
  const clientAddress = clientAddressResolver(config.trustedProxy);
  const failures = failureThrottle(ctx);
  let formKey: Promise<Buffer> | undefined;
  const key = () => (formKey ??= sharedSecret(pool, 'oauth_form_key', randomBytes(32)).catch((err) => { formKey = undefined; throw err; }));
  const form = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 50 });

  const showConsent = async (req: Request, res: Response, pre: Extract<Preflight, { kind: 'ok' }>, status = 200, error?: string, username?: string) => {
    const nonce = cookie(req, CSRF_COOKIE) ?? newNonce();
    res.cookie(CSRF_COOKIE, nonce, { httpOnly: true, sameSite: 'strict', secure: secureCookie, path: base, maxAge: FORM_TOKEN_SECONDS * 1000 });
    res.status(status).set(HTML_HEADERS).send(
      consentPage({ action: `${base}/authorize`, applicationName: pre.client.name, scopes: pre.scopes, params: pre.params, token: formToken(await key(), nonce, pre.params), error, username }),
    );
  };

  const router = Router();

  router.get(`${base}/authorize`, async (req, res) => {
    const pre = await authorizePreflight(pool, req.query as Record<string, unknown>);
    if (pre.kind !== 'ok') return answer(res, pre);
    await showConsent(req, res, pre);
  });

  router.post(`${base}/authorize`, form, async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const pre = await authorizePreflight(pool, body);
    if (pre.kind !== 'ok') return answer(res, pre);
    if (!formTokenValid(await key(), cookie(req, CSRF_COOKIE), str(body.form_token), pre.params)) {
      return answer(res, { kind: 'page', status: 400, title: 'Sign-in form expired', message: 'This form has expired or was not opened in this browser.' });
    }
    if (body.decision !== 'approve') return answer(res, redirectError(pre, 'access_denied', 'The user denied the request'));
    const limited = loginLimiter.take(`login:${clientAddress(req.socket.remoteAddress, req.header('x-forwarded-for'))}`);
    if (!limited.allowed) {
      res.setHeader('Retry-After', String(limited.retryAfterSeconds));
      return answer(res, { kind: 'page', status: 429, title: 'Too many sign-in attempts', message: `Wait ${limited.retryAfterSeconds} seconds and try again.` });
    }
    const username = str(body.username) ?? '';
    const operator = await findOperator(pool, username);
    // An unknown username costs one scrypt too, so timing does not reveal which usernames exist.
    const passwordOk = await verifyPassword(str(body.password) ?? '', operator?.passwordHash ?? (await decoyPasswordHash()));
    if (!operator || !passwordOk) {
      req.log.info({ client_id: pre.client.id }, 'oauth sign-in failed');
      return showConsent(req, res, pre, 401, 'Wrong username or password.', username);
    }
    if (grantableScopes(pre.scopes, pre.client, operator).length === 0) {
      return answer(res, redirectError(pre, 'invalid_scope', 'The account holds none of the requested scopes'));
    }
    const user: Operator = { id: operator.id, username: operator.username, scopes: operator.scopes };
    const request = new OAuth2Server.Request({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, query: {}, body: { ...pre.params } });
    const response = new OAuth2Server.Response({ headers: {} });
    try {
      await authorizeServer.authorize(request, response, { authenticateHandler: { handle: () => user } });
      req.log.info({ client_id: pre.client.id, operator: operator.username }, 'oauth authorization granted');
    } catch (err) {
      if (!(err instanceof OAuth2Server.OAuthError) || err.code >= 500) req.log.error({ err }, 'authorization failed');
    }
    res.redirect(302, String(response.get('location')));
  });

  router.post(`${base}/token`, form, async (req, res) => {
    const body = (req.body ?? {}) as Record<string, string>;
    const grantType = String(body.grant_type ?? 'missing');
    const grantLabel = (GRANT_TYPES as readonly string[]).includes(grantType) ? grantType : 'other';
    const address = clientAddress(req.socket.remoteAddress, req.header('x-forwarded-for'));
    // The secrets this request presents: the client's, and the grant's (failure-throttle.ts).
    const clientSecret = basicPassword(req) ?? body.client_secret;
    const grantSecrets = [body.refresh_token, body.code];
    const admission = failures.admit(address, [clientSecret, ...grantSecrets]);
    const throttled = (retryAfterSeconds: number) => {
      tokenRequests.inc({ grant_type: grantLabel, outcome: 'throttled' });
      return tooMany(res, retryAfterSeconds, 'Too many refused credentials from this address');
    };
    if (!admission.lookup) return throttled(admission.retryAfterSeconds);
    // Keyed on the address as well as the client_id, which the caller chooses.
    const clientId = basicUser(req) ?? body.client_id;
    const limited = [`token-address:${address}`, ...(clientId ? [`token:${clientId}`] : [])].map((k) => tokenLimiter.take(k)).find((d) => !d.allowed);
    if (limited && !limited.allowed) {
      tokenRequests.inc({ grant_type: grantLabel, outcome: 'rate_limited' });
      return tooMany(res, limited.retryAfterSeconds, 'Too many token requests');
    }
    if (body.grant_type !== undefined && !(GRANT_TYPES as readonly string[]).includes(grantType)) {
      // The library also knows the password and client_credentials grants; this server offers neither.
      tokenRequests.inc({ grant_type: 'other', outcome: 'unsupported_grant_type' });
      return res.status(400).set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' }).json({ error: 'unsupported_grant_type', error_description: 'Supported grant types: authorization_code, refresh_token' });
    }
    const request = new OAuth2Server.Request({ method: req.method, headers: req.headers as Record<string, string>, query: {}, body });
    const response = new OAuth2Server.Response({ headers: {} });
    try {
      await tokenServer.token(request, response);
      const issued = response.body as Record<string, unknown>;
      // The library derives expires_in from the stored expiry, a few ms later (3599); the lifetime is 3600.
      issued.expires_in = LIFETIMES.accessTokenSeconds;
      // Spec "Token response": `scope` only in the authorization-code exchange response.
      if (grantType === 'refresh_token') delete issued.scope;
      // The client's next refresh presents this refresh token: it gets through an address over its limit.
      failures.vouch([clientSecret, typeof issued.refresh_token === 'string' ? issued.refresh_token : undefined]);
      tokenRequests.inc({ grant_type: grantLabel, outcome: 'issued' });
    } catch (err) {
      const e = err as InstanceType<typeof OAuth2Server.OAuthError>;
      const known = err instanceof OAuth2Server.OAuthError && e.code < 500;
      if (known) req.log.info({ grant_type: grantType, error: e.name, description: e.message }, 'token request refused');
      // A wrong client secret, code or refresh token: a refused credential; over the limit, the throttle's 429.
      if (known && (e.name === 'invalid_client' || e.name === 'invalid_grant')) {
        const retryAfter = failures.refused(address, e.name === 'invalid_client' ? [clientSecret, ...grantSecrets] : grantSecrets);
        if (admission.throttled) return throttled(retryAfter);
      }
      tokenRequests.inc({ grant_type: grantLabel, outcome: e.name ?? 'error' });
      if (!known) {
        req.log.error({ err }, 'token request failed');
        response.body = { error: 'server_error', error_description: 'An internal error occurred' };
      }
    }
    res.status(response.status ?? 200).set({ ...response.headers, 'Cache-Control': 'no-store', Pragma: 'no-cache' }).json(response.body);
  });

  router.all(`${base}/token`, (_req, res) => {
    res.status(405).set('Allow', 'POST').json({ error: 'invalid_request', error_description: 'The token endpoint accepts POST only' });
  });
  router.all(`${base}/authorize`, (_req, res) => {
    res.status(405).set('Allow', 'GET, POST').set(HTML_HEADERS).send(errorPage('Method not allowed', 'Use GET or POST.'));
  });
  router.use(`${base}/token`, tokenBodyError);
  router.use(`${base}/authorize`, authorizeBodyError);
  return router;
}

/** RFC 6749 5.2 has no 429 error; temporarily_unavailable with Retry-After says when to come back. */
function tooMany(res: Response, retryAfterSeconds: number, what: string): void {
  res.status(429).set({ 'Retry-After': String(retryAfterSeconds), 'Cache-Control': 'no-store' });
  res.json({ error: 'temporarily_unavailable', error_description: `${what}; retry after ${retryAfterSeconds} s` });
}

function answer(res: Response, outcome: Exclude<Preflight, { kind: 'ok' }>): void {
  if (outcome.kind === 'redirect') {
    res.redirect(302, outcome.location);
    return;
  }
  res.status(outcome.status).set(HTML_HEADERS).send(errorPage(outcome.title, outcome.message));
}

function redirectError(pre: Extract<Preflight, { kind: 'ok' }>, error: string, description: string) {
  return redirectWithError(pre.redirectUri, error, description, pre.params.state);
}

/** Form bodies that cannot be parsed get RFC 6749 errors at the token endpoint and a page at the authorization endpoint. */
const tokenBodyError: ErrorRequestHandler = (err: { status?: number; message?: string }, _req, res, _next) => {
  res.status(err.status === 413 ? 413 : 400).set('Cache-Control', 'no-store').json({ error: 'invalid_request', error_description: err.message ?? 'Malformed request' });
};
const authorizeBodyError: ErrorRequestHandler = (err: { status?: number; message?: string }, req, res, _next) => {
  if ((err.status ?? 500) >= 500) req.log.error({ err }, 'authorization endpoint failed');
  const status = err.status !== undefined && err.status < 500 ? err.status : 500;
  res.status(status).set(HTML_HEADERS).send(errorPage('Request failed', status < 500 ? (err.message ?? 'Malformed request') : 'An internal error occurred.'));
};

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function cookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return undefined;
}

/** The password of Basic authentication (the client secret), percent-decoded as RFC 6749 2.3.1 says. */
function basicPassword(req: Request): string | undefined {
  const m = /^Basic +([A-Za-z0-9+/=]+)$/i.exec(req.header('authorization') ?? '');
  if (!m) return undefined;
  const decoded = Buffer.from(m[1] as string, 'base64').toString('utf8');
  const at = decoded.indexOf(':');
  if (at < 0) return undefined;
  try {
    return decodeURIComponent(decoded.slice(at + 1));
  } catch {
    return decoded.slice(at + 1);
  }
}

function basicUser(req: Request): string | undefined {
  const m = /^Basic +([A-Za-z0-9+/=]+)$/i.exec(req.header('authorization') ?? '');
  if (!m) return undefined;
  const decoded = Buffer.from(m[1] as string, 'base64').toString('utf8');
  const user = decoded.split(':')[0];
  try {
    return user ? decodeURIComponent(user) : undefined;
  } catch {
    return user;
  }
}
