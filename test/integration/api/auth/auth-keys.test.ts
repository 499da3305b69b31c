import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../../app/http/express-app.ts';
import { authRoutes } from '../../../../api/auth/routes.ts';
import { v1Router } from '../../../../api/http/routes.ts';
import { listen, type HttpServer } from '../../../../app/http/server.ts';
import type { ServiceContext } from '../../../../platform/context.ts';
import { createPool } from '../../../../platform/postgres.ts';
import { call, expectErrorBody, startTestService, type TestService } from '../../../support/service.ts';
import { testConfig, testLog } from '../../../support/stack.ts';

// Issue 3 "Done means": API keys against the running API and real PostgreSQL.
describe('API keys', () => {
  let svc: TestService;
  let admin: string;
  const issued: string[] = [];

  beforeAll(async () => {
    svc = await startTestService({ PSS_TRUSTED_PROXY: '127.0.0.1', PSS_RATE_LIMIT_BURST: '10000' });
    admin = (await svc.key(['admin'])).key;
    issued.push(admin);
  });
  afterAll(() => svc?.stop());

  const url = (path: string) => `${svc.url}/v1${path}`;

  async function createKey(body: Record<string, unknown>) {
    const res = await call(url('/auth/api-keys'), admin, { method: 'POST', json: body });
    if (typeof res.json?.data?.key === 'string') issued.push(res.json.data.key);
    return res;
  }

  it('creation shows the secret once, with the environment prefix, and never again', async () => {
    const created = await createKey({ name: 'gate-sensors', scopes: ['transactions:read', 'events:read'], expires_in_days: 30, ip_allowlist: ['10.0.0.0/8'] });
    expect(created.status).toBe(201);
    const data = created.json.data;
    expect(data).toMatchObject({ name: 'gate-sensors', scopes: ['transactions:read', 'events:read'], ip_allowlist: ['10.0.0.0/8'] });
    expect(data.key).toMatch(/^svc_test_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(data.id).toMatch(/^key_[0-9a-f]{16}$/);
    const days = (Date.parse(data.expires_at) - Date.parse(data.created_at)) / 86_400_000;
    expect(days).toBeCloseTo(30, 5);

    const listed = await call(url('/auth/api-keys?per_page=200'), admin);
    expect(listed.status).toBe(200);
    expect(listed.json.pagination).toMatchObject({ page: 1, per_page: 200, has_previous: false });
    expect(listed.json.meta.request_id).toBe(listed.headers.get('x-request-id'));
    const mine = listed.json.data.find((k: { id: string }) => k.id === data.id);
    expect(mine).toEqual({ id: data.id, name: 'gate-sensors', scopes: data.scopes, ip_allowlist: ['10.0.0.0/8'], expires_at: data.expires_at, created_at: data.created_at });
    const secret = data.key.split('_').slice(3).join('_');
    expect(listed.text).not.toContain(secret);

    // Stored only as a hash: no column of the row holds the key or its secret part.
    const { rows } = await svc.context.pool.query('SELECT row_to_json(k)::text AS row FROM api_keys k WHERE id = $1', [data.id]);
    expect(rows[0].row).not.toContain(secret);
  });

  it('accepts a rotation call with only name and scopes, and the new key works at once', async () => {
    const created = await createKey({ name: 'rotated', scopes: ['events:read'] });
    expect(created.status).toBe(201);
    const days = (Date.parse(created.json.data.expires_at) - Date.now()) / 86_400_000;
    expect(Math.round(days)).toBe(90);
    const intro = await call(url('/auth/introspect'), created.json.data.key);
    expect(intro.status).toBe(200);
    expect(intro.json.data).toEqual({
      active: true,
      scopes: ['events:read'],
      expires_at: created.json.data.expires_at,
      client_id: created.json.data.id,
      token_type: 'api_key',
      subject: 'rotated',
    });
  });

  it('revocation takes effect on the very next request', async () => {
    const { json } = await createKey({ name: 'to-revoke', scopes: ['events:read'] });
    expect((await call(url('/auth/introspect'), json.data.key)).status).toBe(200);
    const revoked = await call(url(`/auth/api-keys/${json.data.id}`), admin, { method: 'DELETE' });
    expect(revoked.status).toBe(204);
    expectErrorBody(await call(url('/auth/introspect'), json.data.key), 401, 'unauthorized');
    const listed = await call(url('/auth/api-keys?per_page=200'), admin);
    expect(listed.json.data.map((k: { id: string }) => k.id)).not.toContain(json.data.id);
    expectErrorBody(await call(url('/auth/api-keys/key_00000000deadbeef'), admin, { method: 'DELETE' }), 404, 'not_found');
  });

  it('an expired key is refused on the next request', async () => {
    const { json } = await createKey({ name: 'short-lived', scopes: ['events:read'], expires_in_days: 1 });
    expect((await call(url('/auth/introspect'), json.data.key)).status).toBe(200);
    await svc.context.pool.query("UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1", [json.data.id]);
    expectErrorBody(await call(url('/auth/introspect'), json.data.key), 401, 'unauthorized');
  });

  it('answers 401 for missing or invalid credentials and 403 for a missing scope', async () => {
    const reader = (await createKey({ name: 'reader', scopes: ['events:read'] })).json.data.key as string;
    const none = await call(url('/auth/api-keys'), undefined);
    expectErrorBody(none, 401, 'unauthorized');
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="pss"');
    expectErrorBody(await call(url('/auth/api-keys'), 'svc_test_0123456789abcdef_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'), 401, 'unauthorized');
    expectErrorBody(await call(url('/auth/api-keys'), 'not-a-key'), 401, 'unauthorized');
    // A real key with a tampered secret, and the same key under another environment's prefix.
    expectErrorBody(await call(url('/auth/api-keys'), `${reader.slice(0, -4)}AAAA`), 401, 'unauthorized');
    expectErrorBody(await call(url('/auth/api-keys'), reader.replace('svc_test_', 'svc_live_')), 401, 'unauthorized');
    const forbidden = await call(url('/auth/api-keys'), reader);
    expectErrorBody(forbidden, 403, 'forbidden');
    expect(forbidden.json.error.message).toContain('admin');
    expect((await call(url('/auth/introspect'), reader)).status).toBe(200);
  });

  describe('IP allowlist through the trusted proxy (127.0.0.1)', () => {
    const via = (key: string, forwardedFor?: string) =>
      call(url('/auth/introspect'), key, forwardedFor === undefined ? {} : { headers: { 'x-forwarded-for': forwardedFor } });

    it('accepts and denies IPv4 callers', async () => {
      const key = (await createKey({ name: 'v4', scopes: ['events:read'], ip_allowlist: ['203.0.113.0/24', '198.51.100.7'] })).json.data.key;
      expect((await via(key, '203.0.113.54')).status).toBe(200);
      expect((await via(key, '198.51.100.7')).status).toBe(200);
      // The left-most hop is whatever the client claimed; the right-most untrusted hop counts.
      expect((await via(key, '192.0.2.1, 203.0.113.9')).status).toBe(200);
      expectErrorBody(await via(key, '203.0.113.9, 192.0.2.1'), 403, 'forbidden');
      expectErrorBody(await via(key, '198.51.100.8'), 403, 'forbidden');
      expectErrorBody(await via(key), 403, 'forbidden');
    });

    it('accepts and denies IPv6 callers', async () => {
      const key = (await createKey({ name: 'v6', scopes: ['events:read'], ip_allowlist: ['2001:db8:abcd::/48'] })).json.data.key;
      expect((await via(key, '2001:db8:abcd:12::1')).status).toBe(200);
      expectErrorBody(await via(key, '2001:db8:abce::1'), 403, 'forbidden');
      expectErrorBody(await via(key, '203.0.113.54'), 403, 'forbidden');
    });

    it('rejects allowlist entries that are not addresses or CIDR ranges', async () => {
      const res = await createKey({ name: 'bad', scopes: ['events:read'], ip_allowlist: ['10.0.0.0/8', '10.0.0.0/33', 'example.org'] });
      expectErrorBody(res, 422, 'validation_error');
      expect(res.json.error.details.map((d: { path: string }) => d.path)).toEqual(['/ip_allowlist/1', '/ip_allowlist/2']);
    });
  });

  describe('the error body on every error path', () => {
    it('unknown route: 404', async () => {
      expectErrorBody(await call(url('/no/such/route'), admin), 404, 'not_found');
      expectErrorBody(await call(`${svc.url}/elsewhere`, undefined), 404, 'not_found');
    });

    it('wrong method on a known path: 405 with Allow', async () => {
      const res = await call(url('/auth/introspect'), admin, { method: 'POST' });
      expectErrorBody(res, 405, 'method_not_allowed');
      expect(res.headers.get('allow')).toBe('GET');
    });

    it('malformed JSON: 400 invalid_json', async () => {
      expectErrorBody(await call(url('/auth/api-keys'), admin, { method: 'POST', body: '{"name": ', headers: { 'content-type': 'application/json' } }), 400, 'invalid_json');
    });

    it('body over 1 MB: 413 payload_too_large', async () => {
      const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10), scopes: ['events:read'] });
      expectErrorBody(await call(url('/auth/api-keys'), admin, { method: 'POST', body: big, headers: { 'content-type': 'application/json' } }), 413, 'payload_too_large');
    });

    it('body that is not JSON: 415 unsupported_media_type', async () => {
      expectErrorBody(await call(url('/auth/api-keys'), admin, { method: 'POST', body: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415, 'unsupported_media_type');
    });

    it('schema violations: 422 validation_error listing every problem', async () => {
      const res = await createKey({ scopes: ['events:read', 'no:such'], expires_in_days: 0, colour: 'red' });
      expectErrorBody(res, 422, 'validation_error');
      const paths = res.json.error.details.map((d: { location: string; path: string }) => `${d.location}${d.path}`).sort();
      expect(paths).toEqual(['body/colour', 'body/expires_in_days', 'body/name', 'body/scopes/1']);
      expectErrorBody(await call(url('/auth/api-keys?per_page=500'), admin), 422, 'validation_error');
      expectErrorBody(await call(url('/auth/api-keys/not-an-id'), admin, { method: 'DELETE' }), 422, 'validation_error');
      expectErrorBody(await createKey({}), 422, 'validation_error');
    });

    it('a POST without a body is validated as an empty object', async () => {
      const res = await call(url('/auth/api-keys'), admin, { method: 'POST' });
      expectErrorBody(res, 422, 'validation_error');
    });
  });

  it('never writes a secret to the logs', () => {
    const logs = svc.logs();
    expect(logs).toContain('api key created');
    for (const secret of issued) expect(logs).not.toContain(secret.slice(-43));
  });
});

describe('API keys without a trusted proxy', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ PSS_TRUSTED_PROXY: '' });
  });
  afterAll(() => svc?.stop());

  it('ignores X-Forwarded-For: only the socket address counts', async () => {
    const spoofable = await svc.key(['events:read'], { ip_allowlist: ['203.0.113.0/24'] });
    const local = await svc.key(['events:read'], { ip_allowlist: ['127.0.0.0/8', '::1/128'] });
    expectErrorBody(await call(`${svc.url}/v1/auth/introspect`, spoofable.key, { headers: { 'x-forwarded-for': '203.0.113.5' } }), 403, 'forbidden');
    expect((await call(`${svc.url}/v1/auth/introspect`, local.key, { headers: { 'x-forwarded-for': '203.0.113.5' } })).status).toBe(200);
  });
});

describe('rate limiting per credential', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ PSS_RATE_LIMIT_BURST: '3', PSS_RATE_LIMIT_PER_SECOND: '1' });
  });
  afterAll(() => svc?.stop());

  it('answers 429 with Retry-After once a credential spends its burst, other credentials unaffected', async () => {
    const a = await svc.key(['events:read']);
    const b = await svc.key(['events:read']);
    const intro = (k: string) => call(`${svc.url}/v1/auth/introspect`, k);
    for (let i = 0; i < 3; i++) expect((await intro(a.key)).status).toBe(200);
    const limited = await intro(a.key);
    expectErrorBody(limited, 429, 'rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await intro(b.key)).status).toBe(200);
  });
});

describe('credential checks while PostgreSQL is unreachable', () => {
  let http: HttpServer;
  // Port 1 on loopback refuses connections: a real unreachable database, not a mock.
  const pool = createPool('postgres://postgres@127.0.0.1:1/pss', 1);
  beforeAll(async () => {
    const ctx = { config: testConfig(), log: testLog, pool } as unknown as ServiceContext;
    http = await listen(createApp({ log: testLog, readiness: {}, routers: [v1Router(ctx, authRoutes)] }), '127.0.0.1', 0);
  });
  afterAll(async () => {
    await http.close();
    await pool.end();
  });

  it('answers 503 service_unavailable, not 401 or 500', async () => {
    expectErrorBody(await call(`${http.url}/v1/auth/introspect`, 'svc_test_0123456789abcdef_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'), 503, 'service_unavailable');
  });
});
