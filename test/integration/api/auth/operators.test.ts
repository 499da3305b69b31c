import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertClient, insertOperator, insertTokenPair } from '../../../../api/auth/oauth-store.ts';
import { PREFIXES, hashPassword, mint, verifyPassword } from '../../../../api/auth/secrets.ts';
import type { Scope } from '../../../../schemas/auth.ts';
import { call, expectErrorBody, startTestService, type TestService } from '../../../support/service.ts';
import { testConfig } from '../../../support/stack.ts';

// Issue 34 item 6: operators listed, changed, disabled, enabled and given a new password through the admin
// API and `pss users …`; every change audited; a disable, a scope change and a reset end the operator's
// sessions for good (tokens revoked, so enabling the account again does not bring them back).
const PSS = fileURLToPath(new URL('../../../../bin/pss.js', import.meta.url));
const RUN = randomBytes(3).toString('hex');
const PASSWORD = 'gate-officer-password-1';

describe('operator administration', () => {
  let svc: TestService;
  let admin: string;
  let adminKeyId: string;
  let clientId: string;
  const officer = { id: `usr_${randomBytes(8).toString('hex')}`, username: `gate.officer.${RUN}` };

  beforeAll(async () => {
    svc = await startTestService({ PSS_RATE_LIMIT_BURST: '10000' });
    ({ key: admin, id: adminKeyId } = await svc.key(['admin']));
    await insertOperator(svc.context.pool, { ...officer, passwordHash: await hashPassword(PASSWORD), scopes: ['transactions:read', 'transactions:write'] });
    clientId = `cli_${randomBytes(8).toString('hex')}`;
    await insertClient(svc.context.pool, { clientId, name: `ops ${RUN}`, secretHash: null, redirectUris: ['http://127.0.0.1:9/cb'], scopes: ['admin'], grantTypes: ['authorization_code', 'refresh_token'] });
  });
  afterAll(() => svc?.stop());

  /** A signed-in session of the operator: an access and refresh token pair as the token endpoint stores it. */
  async function session(operatorId: string, scopes: Scope[]): Promise<{ access: string; refresh: string }> {
    const access = mint(PREFIXES.access).value;
    const refresh = mint(PREFIXES.refresh).value;
    await insertTokenPair(svc.context.pool, {
      accessValue: access, accessExpiresAt: new Date(Date.now() + 3600_000), refreshValue: refresh, refreshExpiresAt: new Date(Date.now() + 86_400_000),
      familyId: `fam_${randomBytes(4).toString('hex')}`, clientId, operatorId, scopes,
    });
    return { access, refresh };
  }
  const refreshWith = (refresh: string) => fetch(`${svc.url}/oauth/token`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refresh, client_id: clientId }),
  });
  const ops = (path = '', init: Parameters<typeof call>[2] = {}, credential = admin) => call(`${svc.url}/v1/auth/operators${path}`, credential, init);
  const changes = async () => (await ops(`/${officer.id}/changes`)).json.data as { action: string; changed_by: { credential_id: string; principal: string; auth_kind: string }; before: object; after: object }[];

  it('lists operators (disabled too) without their password hashes, to admins only', async () => {
    const res = await ops('?per_page=200');
    expect(res.status).toBe(200);
    const row = res.json.data.find((o: { username: string }) => o.username === officer.username);
    expect(row).toEqual({ id: officer.id, username: officer.username, scopes: ['transactions:read', 'transactions:write'], created_at: expect.any(String), disabled_at: null });
    expect(res.text).not.toContain('scrypt$');
    const { access } = await session(officer.id, ['transactions:read']);
    expectErrorBody(await ops('', {}, access), 403, 'forbidden');
  });

  it('changes scopes: recorded with who and what, and the old session ends (its scopes would otherwise outlive the change)', async () => {
    const before = await session(officer.id, ['transactions:read', 'transactions:write']);
    expect((await call(`${svc.url}/v1/auth/introspect`, before.access)).status).toBe(200);
    const res = await ops(`/${officer.id}`, { method: 'PATCH', json: { scopes: ['transactions:read'] } });
    expect(res.status, res.text).toBe(200);
    expect(res.json.data).toMatchObject({ id: officer.id, scopes: ['transactions:read'], disabled_at: null });
    expectErrorBody(await call(`${svc.url}/v1/auth/introspect`, before.access), 401, 'unauthorized');
    expect((await refreshWith(before.refresh)).status).toBe(400);
    expect((await changes())[0]).toMatchObject({ action: 'scopes', changed_by: { credential_id: adminKeyId, auth_kind: 'api_key' }, before: { scopes: ['transactions:read', 'transactions:write'] }, after: { scopes: ['transactions:read'] } });
    // The same set again changes and records nothing.
    const count = (await changes()).length;
    expect((await ops(`/${officer.id}`, { method: 'PATCH', json: { scopes: ['transactions:read'] } })).status).toBe(200);
    expect((await changes()).length).toBe(count);
  });

  it('disables: tokens refused at once and still refused after the account is enabled again', async () => {
    const live = await session(officer.id, ['transactions:read']);
    expect((await call(`${svc.url}/v1/auth/introspect`, live.access)).status).toBe(200);
    const off = await ops(`/${officer.id}`, { method: 'PATCH', json: { disabled: true } });
    expect(off.status).toBe(200);
    expect(Date.parse(off.json.data.disabled_at)).toBeGreaterThan(Date.now() - 60_000);
    expectErrorBody(await call(`${svc.url}/v1/auth/introspect`, live.access), 401, 'unauthorized');
    expect((await refreshWith(live.refresh)).status).toBe(400);

    const on = await ops(`/${officer.id}`, { method: 'PATCH', json: { disabled: false } });
    expect(on.json.data.disabled_at).toBeNull();
    expectErrorBody(await call(`${svc.url}/v1/auth/introspect`, live.access), 401, 'unauthorized');
    const { rows } = await svc.context.pool.query('SELECT count(*)::int AS n FROM oauth_tokens WHERE operator_id = $1 AND revoked_at IS NULL', [officer.id]);
    expect(rows[0].n).toBe(0);
    expect((await changes()).slice(0, 2).map((c) => [c.action, c.after])).toEqual([['enable', { disabled: false }], ['disable', { disabled: true }]]);
  });

  it('resets a password: stored as a new scrypt hash, sessions revoked, the audit row holds no hash', async () => {
    const live = await session(officer.id, ['transactions:read']);
    const res = await ops(`/${officer.id}/password`, { method: 'POST', json: { password: 'a brand new password 2' } });
    expect(res.status, res.text).toBe(204);
    const { rows } = await svc.context.pool.query('SELECT password_hash FROM operators WHERE id = $1', [officer.id]);
    expect(rows[0].password_hash).toMatch(/^scrypt\$/);
    expect(await verifyPassword('a brand new password 2', rows[0].password_hash)).toBe(true);
    expect(await verifyPassword(PASSWORD, rows[0].password_hash)).toBe(false);
    expectErrorBody(await call(`${svc.url}/v1/auth/introspect`, live.access), 401, 'unauthorized');
    const [latest] = await changes();
    expect(latest).toMatchObject({ action: 'reset_password', after: { password: 'reset' } });
    expect(JSON.stringify(latest)).not.toContain('scrypt');
  });

  it('refuses bad input, unknown operators and an admin locking themselves out', async () => {
    expectErrorBody(await ops(`/${officer.id}`, { method: 'PATCH', json: {} }), 422, 'validation_error');
    expectErrorBody(await ops(`/${officer.id}`, { method: 'PATCH', json: { scopes: ['nope'] } }), 422, 'validation_error');
    expectErrorBody(await ops(`/${officer.id}/password`, { method: 'POST', json: { password: 'short' } }), 422, 'validation_error');
    expectErrorBody(await ops('/usr_00000000deadbeef', { method: 'PATCH', json: { disabled: true } }), 404, 'not_found');
    expectErrorBody(await ops('/usr_00000000deadbeef/password', { method: 'POST', json: { password: 'long enough password' } }), 404, 'not_found');
    expectErrorBody(await ops('/usr_00000000deadbeef/changes'), 404, 'not_found');
    // An administrator signed in through OAuth, taking admin from themselves.
    const boss = { id: `usr_${randomBytes(8).toString('hex')}`, username: `boss.${RUN}` };
    await insertOperator(svc.context.pool, { ...boss, passwordHash: await hashPassword(PASSWORD), scopes: ['admin'] });
    const { access } = await session(boss.id, ['admin']);
    expectErrorBody(await ops(`/${boss.id}`, { method: 'PATCH', json: { disabled: true } }, access), 409, 'resource_conflict');
    expectErrorBody(await ops(`/${boss.id}`, { method: 'PATCH', json: { scopes: ['events:read'] } }, access), 409, 'resource_conflict');
    // Changing another operator through OAuth is recorded under the operator's name.
    expect((await ops(`/${officer.id}`, { method: 'PATCH', json: { scopes: ['transactions:read', 'events:read'] } }, access)).status).toBe(200);
    expect((await changes())[0]?.changed_by).toMatchObject({ principal: boss.username, auth_kind: 'oauth' });
  });

  it('does the same from `pss users …`, recorded as the command line', async () => {
    const env = { ...process.env, PSS_DATABASE_URL: testConfig().databaseUrl, PSS_ENVIRONMENT: 'test', PSS_LOG_LEVEL: 'warn' };
    const pss = (args: string[], input?: string) => spawnSync(process.execPath, [PSS, 'users', ...args], { env, encoding: 'utf8', timeout: 60_000, input });
    const name = `watch.${RUN}`;
    expect(pss(['create', '--username', name, '--scopes', 'events:read,maritime:read', '--password-stdin'], `${PASSWORD}\n`).status).toBe(0);
    const listed = pss(['list']);
    expect(listed.status).toBe(0);
    const mine = (JSON.parse(listed.stdout) as { id: string; username: string; scopes: string[] }[]).find((o) => o.username === name);
    expect(mine?.scopes).toEqual(['events:read', 'maritime:read']);
    expect(listed.stdout).not.toContain('scrypt');
    const id = mine!.id;
    const live = await session(id, ['events:read']);

    const scoped = pss(['scopes', '--username', name, '--scopes', 'events:read,events:write,maritime:read']);
    expect(scoped.status, scoped.stderr).toBe(0);
    expect(JSON.parse(scoped.stdout).scopes).toEqual(['events:read', 'events:write', 'maritime:read']);
    expectErrorBody(await call(`${svc.url}/v1/auth/introspect`, live.access), 401, 'unauthorized');

    expect(JSON.parse(pss(['disable', '--username', name]).stdout).disabled_at).not.toBeNull();
    expect(JSON.parse(pss(['enable', '--username', name]).stdout).disabled_at).toBeNull();
    const reset = pss(['reset-password', '--username', name, '--password-stdin'], 'another long password\n');
    expect(reset.status, reset.stderr).toBe(0);
    expect(reset.stdout).not.toContain('another long password');
    const { rows } = await svc.context.pool.query('SELECT password_hash FROM operators WHERE id = $1', [id]);
    expect(await verifyPassword('another long password', rows[0].password_hash)).toBe(true);

    const audit = (await call(`${svc.url}/v1/auth/operators/${id}/changes`, admin)).json.data as { action: string; changed_by: { auth_kind: string; principal: string } }[];
    expect(audit.map((c) => c.action)).toEqual(['reset_password', 'enable', 'disable', 'scopes', 'create']);
    expect(audit.every((c) => c.changed_by.auth_kind === 'cli' && c.changed_by.principal.startsWith('cli:'))).toBe(true);

    expect(pss(['disable', '--username', `nobody.${RUN}`]).stderr).toContain(`no operator nobody.${RUN}`);
    expect(pss(['scopes', '--username', name, '--scopes', 'nope']).status).toBe(2);
    expect(pss(['reset-password', '--username', name, '--password', 'short']).status).toBe(2);
  });
});
