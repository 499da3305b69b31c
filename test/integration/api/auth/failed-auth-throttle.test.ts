import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerClient } from '../../../../api/auth/clients.ts';
import { insertOperator, insertTokenPair } from '../../../../api/auth/oauth-store.ts';
import { mint, PREFIXES } from '../../../../api/auth/secrets.ts';
import { call, expectErrorBody, startTestService, type TestService } from '../../../support/service.ts';

// Issue 8, defect 7: 1,200 bad-credential requests in a second got no 429, each a database lookup, and
// the token endpoint's limit was keyed on the client_id the caller chooses. Failed authentications are
// now throttled per client address (resolved through the trusted proxy, 127.0.0.1 here).
const BURST = 5;
const ATTEMPTS = 30;

describe('throttling of failed authentication per client address', () => {
  let svc: TestService;

  beforeAll(async () => {
    svc = await startTestService({
      PSS_TRUSTED_PROXY: '127.0.0.1',
      PSS_AUTH_FAILURES_BURST: String(BURST),
      PSS_AUTH_FAILURES_PER_MINUTE: '1',
      PSS_RATE_LIMIT_BURST: '10000',
    });
  });
  afterAll(() => svc?.stop());

  /** A well-formed key that does not exist: refusing it costs a lookup of its row. */
  const unknownKey = () => `svc_test_${randomBytes(8).toString('hex')}_${randomBytes(32).toString('base64url')}`;
  const from = (address: string) => ({ headers: { 'x-forwarded-for': address } });
  const introspect = (credential: string, address: string) => call(`${svc.url}/v1/auth/introspect`, credential, from(address));

  /** pss_auth_failures_total by reason; `unknown` is counted only after the credential's row was looked up. */
  async function failures(): Promise<Record<string, number>> {
    const text = await (await fetch(`${svc.url}/metrics`)).text();
    return Object.fromEntries([...text.matchAll(/^pss_auth_failures_total\{reason="(\w+)"\} (\d+)$/gm)].map((m) => [m[1], Number(m[2])]));
  }

  it('answers 429 with Retry-After once an address spends its burst, looking guesses up no more (but one per refill interval)', async () => {
    const before = await failures();
    const statuses: number[] = [];
    for (let i = 0; i < ATTEMPTS; i++) {
      const res = await introspect(unknownKey(), '198.51.100.7');
      statuses.push(res.status);
      if (res.status === 429) {
        expectErrorBody(res, 429, 'rate_limited');
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
    }
    expect(statuses).toEqual([...Array<number>(BURST).fill(401), ...Array<number>(ATTEMPTS - BURST).fill(429)]);
    const after = await failures();
    // The first request over the limit may look its credential up (a client new to this instance gets in, slowly).
    expect((after.unknown ?? 0) - (before.unknown ?? 0)).toBe(BURST + 1);
    expect((after.throttled ?? 0) - (before.throttled ?? 0)).toBe(ATTEMPTS - BURST);
  });

  it('serves a valid credential from a throttled address: one guesser behind a NAT does not lock out the rest (issue 21)', async () => {
    const good = await svc.key(['events:read']);
    expect((await introspect(good.key, '198.51.100.8')).status).toBe(200);
    // 198.51.100.7 is over its limit (the test above) and has spent its look-up of the interval.
    const served = await introspect(good.key, '198.51.100.7');
    expect(served.status).toBe(200);
    expect(served.json.data).toMatchObject({ active: true, token_type: 'api_key' });
  });

  it('answers a wrong, revoked or disallowed credential from a throttled address with the same 429 as one not looked up', async () => {
    const throttledAddress = '198.51.100.11';
    for (let i = 0; i < BURST + 1; i++) await introspect(unknownKey(), throttledAddress);
    const notLookedUp = await introspect(unknownKey(), throttledAddress);
    expectErrorBody(notLookedUp, 429, 'rate_limited');
    const revoked = await svc.key(['events:read']);
    const fenced = await svc.key(['events:read'], { ip_allowlist: ['203.0.113.0/24'] });
    expect((await introspect(revoked.key, '198.51.100.12')).status).toBe(200);
    expect((await introspect(fenced.key, '203.0.113.5')).status).toBe(200);
    await svc.context.pool.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [revoked.id]);
    for (const credential of [revoked.key, fenced.key]) {
      const res = await introspect(credential, throttledAddress);
      expectErrorBody(res, 429, 'rate_limited');
      expect(res.json.error.message).toMatch(/^Too many refused credentials from this address; retry after \d+ s$/);
      expect(Object.keys(res.json.error).sort()).toEqual(Object.keys(notLookedUp.json.error).sort());
      expect(res.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    }
  });

  it('does not count requests without a credential: they cost no lookup', async () => {
    for (let i = 0; i < ATTEMPTS; i++) expectErrorBody(await call(`${svc.url}/v1/auth/introspect`, undefined, from('198.51.100.10')), 401, 'unauthorized');
    const good = await svc.key(['events:read']);
    expect((await introspect(good.key, '198.51.100.10')).status).toBe(200);
  });

  it('lets an OAuth client refresh from a throttled address with the refresh token it was last issued (issue 21)', async () => {
    const { pool } = svc.context;
    const operatorId = `usr_${randomBytes(8).toString('hex')}`;
    await insertOperator(pool, { id: operatorId, username: `throttle-${operatorId}`, passwordHash: 'scrypt$unused', scopes: ['events:read'] });
    const client = await registerClient(pool, { name: 'Patrol Tablet', redirect_uris: ['http://127.0.0.1:9/cb'], scopes: ['events:read'], grant_types: ['authorization_code', 'refresh_token'], client_type: 'public' });
    const refresh = mint(PREFIXES.refresh).value;
    const expires = (s: number) => new Date(Date.now() + s * 1000);
    await insertTokenPair(pool, { accessValue: mint(PREFIXES.access).value, accessExpiresAt: expires(3600), refreshValue: refresh, refreshExpiresAt: expires(86_400), familyId: `fam-${operatorId}`, clientId: client.client_id, operatorId, scopes: ['events:read'] });
    const refreshFrom = (address: string, token: string) => fetch(`${svc.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': address },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token, client_id: client.client_id }),
    });
    const first = await refreshFrom('198.51.100.20', refresh);
    expect(first.status).toBe(200);
    const next = String(((await first.json()) as { refresh_token: unknown }).refresh_token);
    const throttledAddress = '198.51.100.21';
    const guess = `svc_refresh_${randomBytes(8).toString('hex')}_${randomBytes(32).toString('base64url')}`;
    for (let i = 0; i < BURST + 1; i++) await (await refreshFrom(throttledAddress, guess)).body?.cancel();
    const refused = await refreshFrom(throttledAddress, guess);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ error: 'temporarily_unavailable' });
    const served = await refreshFrom(throttledAddress, next);
    expect(served.status).toBe(200);
    expect(((await served.json()) as { access_token: unknown }).access_token).toMatch(/^svc_oauth_/);
    // The refresh token just used is spent: presenting it again is refused, as the throttle's 429.
    const reused = await refreshFrom(throttledAddress, next);
    expect(reused.status).toBe(429);
    expect(await reused.json()).toMatchObject({ error: 'temporarily_unavailable' });
  });

  it('throttles the token endpoint per address: rotating client_id does not bypass it', async () => {
    const statuses: number[] = [];
    let limited: Response | undefined;
    for (let i = 0; i < ATTEMPTS; i++) {
      const res = await fetch(`${svc.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '198.51.100.9' },
        body: new URLSearchParams({
          grant_type: 'authorization_code', client_id: `cli_${randomBytes(8).toString('hex')}`, client_secret: 'svc_secret_guess',
          code: 'svc_code_0000000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', redirect_uri: 'http://127.0.0.1:9/cb',
        }),
      });
      statuses.push(res.status);
      if (res.status === 429) limited = res;
      else await res.body?.cancel();
    }
    expect(statuses.slice(0, BURST).every((s) => s === 400 || s === 401)).toBe(true);
    expect(statuses.slice(BURST)).toEqual(Array<number>(ATTEMPTS - BURST).fill(429));
    expect(limited?.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect(limited?.headers.get('cache-control')).toBe('no-store');
    expect(await limited?.json()).toMatchObject({ error: 'temporarily_unavailable' });
    // One budget per address: the same address is throttled on /v1 too.
    expectErrorBody(await introspect(unknownKey(), '198.51.100.9'), 429, 'rate_limited');
  });
});
