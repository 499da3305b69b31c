import { createHash, randomBytes } from 'node:crypto';
import { AuthorizationCode, type AccessToken } from 'simple-oauth2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../../../api/auth/secrets.ts';
import { insertOperator } from '../../../../api/auth/oauth-store.ts';
import { call, expectErrorBody, startTestService, type TestService } from '../../../support/service.ts';

// Issue 3 "Done means": the full authorization code flow driven by a real OAuth client (simple-oauth2),
// with the login and consent page submitted the way a browser would.

const PASSWORD = 'correct horse battery staple';
const REDIRECT = 'http://127.0.0.1:9/callback';
const OTHER_REDIRECT = 'http://127.0.0.1:9/other';

interface Registered {
  client_id: string;
  client_secret?: string;
}

describe('OAuth 2.0 authorization code flow', () => {
  let svc: TestService;
  let admin: string;
  let confidential: Registered;
  let publicClient: Registered;
  const issued: string[] = [PASSWORD];

  beforeAll(async () => {
    svc = await startTestService({ PSS_RATE_LIMIT_BURST: '10000', PSS_LOGIN_ATTEMPTS_PER_MINUTE: '1000' });
    admin = (await svc.key(['admin'])).key;
    issued.push(admin);
    await insertOperator(svc.context.pool, { id: 'usr_00000000000000a1', username: 'duty.officer', passwordHash: await hashPassword(PASSWORD), scopes: ['events:read', 'maritime:read', 'transactions:read'] });
    confidential = await register({ name: 'Harbour Dashboard', redirect_uris: [REDIRECT, OTHER_REDIRECT], scopes: ['events:read', 'maritime:read', 'webhooks:read'] });
    publicClient = await register({ name: 'Patrol Tablet', redirect_uris: [REDIRECT], scopes: ['events:read'], client_type: 'public' });
  });
  afterAll(() => svc?.stop());

  async function register(body: Record<string, unknown>): Promise<Registered> {
    const res = await call(`${svc.url}/v1/auth/oauth-clients`, admin, { method: 'POST', json: body });
    expect(res.status).toBe(201);
    if (res.json.data.client_secret) issued.push(res.json.data.client_secret);
    return res.json.data;
  }

  function oauthClient(c: Registered, authorizationMethod: 'header' | 'body' = 'header') {
    return new AuthorizationCode({
      client: { id: c.client_id, secret: c.client_secret ?? '' },
      auth: { tokenHost: svc.url, tokenPath: '/oauth/token', authorizePath: '/oauth/authorize' },
      options: { authorizationMethod },
    });
  }

  const pkce = () => {
    const verifier = randomBytes(32).toString('base64url');
    return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
  };

  /** What a browser does: load the page, fill in the form, submit it with the cookie the page set. */
  async function consent(authorizeUrl: string, answers: { username?: string; password?: string; decision?: string; cookie?: boolean } = {}) {
    const page = await fetch(authorizeUrl, { redirect: 'manual' });
    const html = await page.text();
    if (page.status !== 200) return { status: page.status, html, location: page.headers.get('location') };
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(html).not.toMatch(/<script|https?:\/\/(?!127\.0\.0\.1:9\/)/);
    const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const form = new URLSearchParams();
    for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) form.set(m[1] as string, decode(m[2] as string));
    form.set('username', answers.username ?? 'duty.officer');
    form.set('password', answers.password ?? PASSWORD);
    form.set('decision', answers.decision ?? 'approve');
    const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1] as string;
    const submitted = await fetch(new URL(decode(action), svc.url), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(answers.cookie === false ? {} : { cookie }) },
      body: form,
    });
    return { status: submitted.status, html: await submitted.text(), location: submitted.headers.get('location'), page: html };
  }

  /** The RFC 6749 error a token request failed with (simple-oauth2 throws the HTTP error with the body in data.payload). */
  async function refusal(attempt: Promise<unknown>): Promise<{ status: number; error: string }> {
    try {
      await attempt;
    } catch (err) {
      const e = err as { output?: { statusCode: number }; data?: { payload?: unknown } };
      const payload = e.data?.payload;
      const body = (Buffer.isBuffer(payload) ? JSON.parse(payload.toString()) : payload) as { error: string };
      return { status: e.output?.statusCode ?? 0, error: body.error };
    }
    throw new Error('the token request was expected to fail');
  }

  const decode = (s: string) => s.replace(/&#(\d+);/g, (_m, c: string) => String.fromCharCode(Number(c)));

  /** Runs authorize + consent; returns the redirect's query. */
  async function authorize(client: Registered, params: Record<string, string>, answers = {}) {
    const url = oauthClient(client).authorizeURL({ redirect_uri: REDIRECT, ...params });
    const result = await consent(url, answers);
    expect(result.status).toBe(302);
    const location = new URL(result.location as string);
    return { location, query: Object.fromEntries(location.searchParams) };
  }

  async function token(t: AccessToken) {
    issued.push(String(t.token.access_token), String(t.token.refresh_token));
    return t;
  }

  it('runs the whole flow: consent, state, code exchange, API call, refresh rotation, reuse detection', async () => {
    const client = oauthClient(confidential);
    const state = `st-${randomBytes(8).toString('hex')}~.x`;
    const { verifier, challenge } = pkce();
    const { location, query } = await authorize(confidential, { scope: 'events:read maritime:read', state, code_challenge: challenge, code_challenge_method: 'S256' });
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    expect(query.state).toBe(state);
    expect(query.code).toMatch(/^svc_code_/);
    issued.push(query.code as string);

    const first = await token(await client.getToken({ code: query.code as string, redirect_uri: REDIRECT, code_verifier: verifier } as never));
    expect(first.token).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'events:read maritime:read' });
    expect(first.token.access_token).toMatch(/^svc_oauth_/);
    expect(first.token.refresh_token).toMatch(/^svc_refresh_/);

    const intro = await call(`${svc.url}/v1/auth/introspect`, String(first.token.access_token));
    expect(intro.status).toBe(200);
    expect(intro.json.data).toMatchObject({ active: true, token_type: 'oauth', client_id: confidential.client_id, scopes: ['events:read', 'maritime:read'] });
    expect(Math.abs(Date.parse(intro.json.data.expires_at) - Date.now() - 3600_000)).toBeLessThan(60_000);
    expectErrorBody(await call(`${svc.url}/v1/auth/api-keys`, String(first.token.access_token)), 403, 'forbidden');

    // Refresh: a new pair; the response carries no scope.
    const second = await token(await first.refresh());
    expect(second.token.access_token).not.toBe(first.token.access_token);
    expect(second.token.refresh_token).not.toBe(first.token.refresh_token);
    expect(second.token).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    expect(second.token.scope).toBeUndefined();
    expect((await call(`${svc.url}/v1/auth/introspect`, String(second.token.access_token))).status).toBe(200);

    // The rotated refresh token again: refused, and the whole family is revoked.
    expect(await refusal(first.refresh())).toEqual({ status: 400, error: 'invalid_grant' });
    expectErrorBody(await call(`${svc.url}/v1/auth/introspect`, String(second.token.access_token)), 401, 'unauthorized');
    expectErrorBody(await call(`${svc.url}/v1/auth/introspect`, String(first.token.access_token)), 401, 'unauthorized');
    expect((await refusal(second.refresh())).error).toBe('invalid_grant');
  });

  it('refuses a reused code and revokes the tokens issued from it', async () => {
    const client = oauthClient(confidential, 'body');
    const { query } = await authorize(confidential, { scope: 'events:read', state: 's1' });
    const exchanged = await token(await client.getToken({ code: query.code as string, redirect_uri: REDIRECT }));
    expect((await call(`${svc.url}/v1/auth/introspect`, String(exchanged.token.access_token))).status).toBe(200);
    expect((await refusal(client.getToken({ code: query.code as string, redirect_uri: REDIRECT }))).error).toBe('invalid_grant');
    expectErrorBody(await call(`${svc.url}/v1/auth/introspect`, String(exchanged.token.access_token)), 401, 'unauthorized');
    expect((await refusal(exchanged.refresh())).error).toBe('invalid_grant');
  });

  it('refuses a redirect_uri that differs from the authorization request, at both endpoints', async () => {
    const client = oauthClient(confidential);
    const { query } = await authorize(confidential, { scope: 'events:read', state: 's2' });
    expect((await refusal(client.getToken({ code: query.code as string, redirect_uri: OTHER_REDIRECT }))).error).toBe('invalid_grant');
    // Not registered at all: a page, never a redirect to the unregistered address.
    const page = await consent(client.authorizeURL({ redirect_uri: 'http://127.0.0.1:9/callback/', scope: 'events:read', state: 's' }));
    expect(page.status).toBe(400);
    expect(page.location).toBeNull();
    expect(page.html).toContain('Invalid redirect URI');
  });

  it('refuses a PKCE verifier that does not match, and requires PKCE for public clients', async () => {
    const { challenge } = pkce();
    const { query } = await authorize(publicClient, { scope: 'events:read', state: 's3', code_challenge: challenge, code_challenge_method: 'S256' });
    const client = oauthClient(publicClient, 'body');
    expect(await refusal(client.getToken({ code: query.code as string, redirect_uri: REDIRECT, code_verifier: pkce().verifier } as never))).toEqual({ status: 400, error: 'invalid_grant' });
    const without = await consent(client.authorizeURL({ redirect_uri: REDIRECT, scope: 'events:read', state: 's4' }));
    expect(without.status).toBe(302);
    const refused = new URL(without.location as string).searchParams;
    expect(refused.get('error')).toBe('invalid_request');
    expect(refused.get('state')).toBe('s4');
    const plain = await consent(client.authorizeURL({ redirect_uri: REDIRECT, scope: 'events:read', state: 's5', code_challenge: challenge, code_challenge_method: 'plain' } as never));
    expect(new URL(plain.location as string).searchParams.get('error')).toBe('invalid_request');
  });

  it('lets a public client exchange with the right verifier and refresh without a secret', async () => {
    const { verifier, challenge } = pkce();
    const { query } = await authorize(publicClient, { scope: 'events:read', state: 's6', code_challenge: challenge, code_challenge_method: 'S256' });
    const client = oauthClient(publicClient, 'body');
    const t = await token(await client.getToken({ code: query.code as string, redirect_uri: REDIRECT, code_verifier: verifier } as never));
    expect(t.token.scope).toBe('events:read');
    const refreshed = await token(await t.refresh());
    expect((await call(`${svc.url}/v1/auth/introspect`, String(refreshed.token.access_token))).status).toBe(200);
  });

  it('grants only scopes that both the application may request and the operator holds', async () => {
    const { query } = await authorize(confidential, { scope: 'events:read webhooks:read transactions:read', state: 's7' });
    const t = await token(await oauthClient(confidential).getToken({ code: query.code as string, redirect_uri: REDIRECT }));
    expect(t.token.scope).toBe('events:read');
    const unknown = await consent(oauthClient(confidential).authorizeURL({ redirect_uri: REDIRECT, scope: 'events:read nonsense', state: 's8' }));
    expect(new URL(unknown.location as string).searchParams.get('error')).toBe('invalid_scope');
  });

  it('shows the application and scopes, refuses a wrong password, honours Deny, and requires the form cookie', async () => {
    const url = oauthClient(confidential).authorizeURL({ redirect_uri: REDIRECT, scope: 'events:read maritime:read', state: 'st/+= 9' });
    const wrong = await consent(url, { password: 'not the password' });
    expect(wrong.status).toBe(401);
    expect(wrong.location).toBeNull();
    expect(wrong.page).toContain('Harbour Dashboard');
    expect(wrong.page).toContain('maritime:read');
    expect(wrong.html).toContain('Wrong username or password');
    const unknownUser = await consent(url, { username: 'nobody' });
    expect(unknownUser.status).toBe(401);

    const denied = await consent(url, { decision: 'deny' });
    const q = new URL(denied.location as string).searchParams;
    expect(q.get('error')).toBe('access_denied');
    expect(q.get('state')).toBe('st/+= 9');
    expect(q.get('code')).toBeNull();

    const forged = await consent(url, { cookie: false });
    expect(forged.status).toBe(400);
    expect(forged.location).toBeNull();
  });

  it('answers token endpoint errors in RFC 6749 form', async () => {
    const { query } = await authorize(confidential, { scope: 'events:read', state: 's9' });
    const wrongSecret = oauthClient({ client_id: confidential.client_id, client_secret: 'svc_secret_wrong' });
    expect(await refusal(wrongSecret.getToken({ code: query.code as string, redirect_uri: REDIRECT }))).toEqual({ status: 401, error: 'invalid_client' });
    const raw = async (body: Record<string, string>) => {
      const res = await fetch(`${svc.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(body) });
      return { status: res.status, body: (await res.json()) as Record<string, unknown>, cacheControl: res.headers.get('cache-control') };
    };
    const creds = { client_id: confidential.client_id, client_secret: confidential.client_secret as string };
    expect(await raw({ ...creds, grant_type: 'password', username: 'x', password: 'y' })).toMatchObject({ status: 400, body: { error: 'unsupported_grant_type' }, cacheControl: 'no-store' });
    expect(await raw({ ...creds, grant_type: 'authorization_code', code: 'svc_code_0000000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', redirect_uri: REDIRECT })).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await raw({ client_id: confidential.client_id, grant_type: 'refresh_token', refresh_token: 'svc_refresh_x' })).toMatchObject({ body: { error: 'invalid_client' } });
    expect(await raw({ ...creds })).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
  });

  it('refuses an expired access token', async () => {
    const { query } = await authorize(confidential, { scope: 'events:read', state: 's10' });
    const t = await token(await oauthClient(confidential).getToken({ code: query.code as string, redirect_uri: REDIRECT }));
    await svc.context.pool.query("UPDATE oauth_tokens SET access_expires_at = now() - interval '1 second' WHERE access_id = $1", [String(t.token.access_token).split('_')[2]]);
    expectErrorBody(await call(`${svc.url}/v1/auth/introspect`, String(t.token.access_token)), 401, 'unauthorized');
  });

  it('refuses an expired authorization code', async () => {
    const { query } = await authorize(confidential, { scope: 'events:read', state: 's11' });
    await svc.context.pool.query("UPDATE oauth_codes SET expires_at = now() - interval '1 second'");
    expect((await refusal(oauthClient(confidential).getToken({ code: query.code as string, redirect_uri: REDIRECT }))).error).toBe('invalid_grant');
  });

  it('never writes a password, secret, code or token to the logs', () => {
    const logs = svc.logs();
    expect(logs).toContain('oauth authorization granted');
    expect(logs).toContain('refresh token reused');
    expect(issued.length).toBeGreaterThan(15);
    for (const secret of issued) {
      const tail = secret.startsWith('svc_') ? secret.slice(-43) : secret;
      expect(logs).not.toContain(tail);
    }
  });
});
