// Issue 33, item 6: every answer of the API, the probes and /metrics says `nosniff` and `no-store` (OWASP
// REST Security Cheat Sheet), errors included and answers carrying credentials above all; what the console
// may cache keeps its own Cache-Control.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authFeature, consoleFeature, eventsFeature } from '../../../../app/features.ts';
import { call, startTestService, type TestService } from '../../../support/service.ts';

describe('API response headers', () => {
  let svc: TestService;
  let admin: string;

  beforeAll(async () => {
    svc = await startTestService({}, [authFeature, eventsFeature, consoleFeature]);
    admin = (await svc.key(['admin'])).key;
  });
  afterAll(() => svc?.stop());

  const expectApiHeaders = (res: { status: number; headers: Headers }, status: number, what: string) => {
    expect(res.status, what).toBe(status);
    expect(res.headers.get('x-content-type-options'), what).toBe('nosniff');
    expect(res.headers.get('cache-control'), what).toBe('no-store');
  };

  it('are on the probes, the metrics and the OpenAPI document', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics', '/v1/openapi.json']) expectApiHeaders(await call(`${svc.url}${path}`, undefined), 200, path);
  });

  it('are on answers that carry a credential: a created API key and the key list', async () => {
    const created = await call(`${svc.url}/v1/auth/api-keys`, admin, { method: 'POST', json: { name: 'headers test', scopes: ['events:read'] } });
    expectApiHeaders(created, 201, 'POST /v1/auth/api-keys');
    expect(created.json.data.key).toMatch(/^svc_test_/);
    expectApiHeaders(await call(`${svc.url}/v1/auth/api-keys`, admin), 200, 'GET /v1/auth/api-keys');
    expectApiHeaders(await call(`${svc.url}/v1/events`, admin), 200, 'GET /v1/events');
  });

  it('are on every error: 401, 403, 404 (in /v1 and outside it), 405, 415 and 422', async () => {
    const reader = (await svc.key(['events:read'])).key;
    expectApiHeaders(await call(`${svc.url}/v1/auth/api-keys`, undefined), 401, 'no credential');
    expectApiHeaders(await call(`${svc.url}/v1/auth/api-keys`, 'svc_test_0123456789abcdef_nope'), 401, 'unknown credential');
    expectApiHeaders(await call(`${svc.url}/v1/auth/api-keys`, reader), 403, 'missing scope');
    expectApiHeaders(await call(`${svc.url}/v1/nothing-here`, admin), 404, '/v1 unknown route');
    expectApiHeaders(await call(`${svc.url}/nothing-here`, undefined), 404, 'unknown route');
    expectApiHeaders(await call(`${svc.url}/v1/openapi.json`, admin, { method: 'DELETE' }), 405, 'wrong method');
    expectApiHeaders(await call(`${svc.url}/v1/auth/api-keys`, admin, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' }), 415, 'wrong media type');
    expectApiHeaders(await call(`${svc.url}/v1/events?page=0`, admin), 422, 'bad query');
  });

  it('leave the console its own caching: a land tile for a day, nosniff kept', async () => {
    const tile = await fetch(`${svc.url}/console/land/0/0/0.pbf`);
    expect(tile.status).toBe(200);
    expect(tile.headers.get('cache-control')).toBe('public, max-age=86400');
    expect(tile.headers.get('x-content-type-options')).toBe('nosniff');
    expectApiHeaders(await call(`${svc.url}/console/land/99/0/0.pbf`, undefined), 404, 'tile outside the pyramid');
  });
});
