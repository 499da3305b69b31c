import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../../support/service.ts';

describe('GET /v1/openapi.json', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ PSS_PUBLIC_URL: 'https://api.port.example', PSS_AUTH_URL: 'https://auth.port.example/sso' });
  });
  afterAll(() => svc?.stop());

  it('is served without credentials and validates as OpenAPI 3.1', async () => {
    const res = await fetch(`${svc.url}/v1/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { servers: { url: string }[]; paths: Record<string, unknown>; components: { securitySchemes: { oauth: { flows: { authorizationCode: { tokenUrl: string } } } } } };
    const result = await new Validator().validate(doc);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(doc.servers[0]?.url).toBe('https://api.port.example');
    expect(doc.components.securitySchemes.oauth.flows.authorizationCode.tokenUrl).toBe('https://auth.port.example/sso/oauth/token');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/v1/auth/api-keys', '/v1/auth/api-keys/{key_id}', '/v1/auth/introspect', '/v1/openapi.json']));
  });

  it('mounts the OAuth endpoints under the path of PSS_AUTH_URL', async () => {
    const res = await fetch(`${svc.url}/sso/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=refresh_token' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_client');
    expect((await fetch(`${svc.url}/oauth/token`, { method: 'POST' })).status).toBe(404);
  });
});
