import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectErrorBody, startTestService, type TestService } from '../../support/service.ts';
import { testConfig } from '../../support/stack.ts';

const PSS = fileURLToPath(new URL('../../../bin/pss.js', import.meta.url));

// Bootstrap without the API (issue 3): the commands an operator runs before any key exists.
describe('pss keys / users / oauth-clients', () => {
  let svc: TestService;
  let env: Record<string, string>;

  beforeAll(async () => {
    svc = await startTestService();
    env = { PSS_DATABASE_URL: testConfig().databaseUrl, PSS_ENVIRONMENT: 'test', PSS_LOG_LEVEL: 'warn' };
  });
  afterAll(() => svc?.stop());

  const pss = (args: string[], input?: string) =>
    spawnSync(process.execPath, [PSS, ...args], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60_000, input });

  it('creates a key that works at once, and revokes it', async () => {
    const created = pss(['keys', 'create', '--name', 'first admin', '--scopes', 'admin', '--expires-in-days', '7', '--ip-allowlist', '127.0.0.1,::1']);
    expect(created.stderr).toBe('');
    expect(created.status).toBe(0);
    const key = JSON.parse(created.stdout) as { id: string; key: string; scopes: string[]; ip_allowlist: string[] };
    expect(key.key).toMatch(/^svc_test_/);
    expect(key.ip_allowlist).toEqual(['127.0.0.1/32', '::1/128']);
    expect((await call(`${svc.url}/v1/auth/api-keys`, key.key)).status).toBe(200);

    const listed = pss(['keys', 'list']);
    expect(listed.stdout).toContain(key.id);
    expect(listed.stdout).not.toContain(key.key);

    expect(pss(['keys', 'revoke', key.id]).status).toBe(0);
    expectErrorBody(await call(`${svc.url}/v1/auth/api-keys`, key.key), 401, 'unauthorized');
    expect(pss(['keys', 'revoke', 'key_00000000deadbeef']).status).toBe(2);
  });

  it('refuses bad input with a message and exit status 2', () => {
    const run = pss(['keys', 'create', '--name', 'x', '--scopes', 'events:read,nope', '--expires-in-days', 'soon']);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('scopes.1 must be one of');
    expect(run.stderr).toContain('expires_in_days must be integer');
    expect(pss(['keys', 'create', '--name', 'x', '--scopes', 'events:read', '--ip-allowlist', 'nowhere']).stderr).toContain('nowhere');
    expect(pss(['keys']).status).toBe(2);
  });

  it('creates operators (password from stdin) and OAuth applications', async () => {
    const user = pss(['users', 'create', '--username', 'cli.officer', '--scopes', 'events:read', '--password-stdin'], 'a long enough password\n');
    expect(user.status).toBe(0);
    expect(JSON.parse(user.stdout)).toMatchObject({ username: 'cli.officer', scopes: ['events:read'] });
    expect(user.stdout).not.toContain('a long enough password');
    const { rows } = await svc.context.pool.query('SELECT password_hash FROM operators WHERE username = $1', ['cli.officer']);
    expect(rows[0].password_hash).toMatch(/^scrypt\$/);
    expect(pss(['users', 'create', '--username', 'cli.officer', '--scopes', 'events:read', '--password', 'another long password']).stderr).toContain('taken');
    expect(pss(['users', 'create', '--username', 'short', '--scopes', 'events:read', '--password', 'short']).status).toBe(2);

    const app = pss(['oauth-clients', 'create', '--name', 'Berth planner', '--redirect-uri', 'https://planner.example/cb', '--redirect-uri', 'http://127.0.0.1:7000/cb', '--scopes', 'events:read,maritime:read']);
    expect(app.status).toBe(0);
    const client = JSON.parse(app.stdout);
    expect(client).toMatchObject({ name: 'Berth planner', client_type: 'confidential', grant_types: ['authorization_code', 'refresh_token'], redirect_uris: ['https://planner.example/cb', 'http://127.0.0.1:7000/cb'] });
    expect(client.client_id).toMatch(/^cli_[0-9a-f]{16}$/);
    expect(client.client_secret).toMatch(/^svc_secret_/);
    const publicApp = JSON.parse(pss(['oauth-clients', 'create', '--name', 'Tablet', '--redirect-uri', 'https://t.example/cb', '--scopes', 'events:read', '--public']).stdout);
    expect(publicApp.client_type).toBe('public');
    expect(publicApp.client_secret).toBeUndefined();
    expect(pss(['oauth-clients', 'create', '--name', 'Bad', '--redirect-uri', 'http://planner.example/cb', '--scopes', 'events:read']).stderr).toContain('https');
  });
});
