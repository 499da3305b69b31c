import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

  it('answers 429 with Retry-After once an address spends its burst, without looking the credential up', async () => {
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
    expect((after.unknown ?? 0) - (before.unknown ?? 0)).toBe(BURST);
    expect((after.throttled ?? 0) - (before.throttled ?? 0)).toBe(ATTEMPTS - BURST);
  });

  it('lets a good credential from another address through while that address is throttled', async () => {
    const good = await svc.key(['events:read']);
    expect((await introspect(good.key, '198.51.100.8')).status).toBe(200);
    // Checked before the lookup, so the throttled address waits even with a good credential.
    expectErrorBody(await introspect(good.key, '198.51.100.7'), 429, 'rate_limited');
  });

  it('does not count requests without a credential: they cost no lookup', async () => {
    for (let i = 0; i < ATTEMPTS; i++) expectErrorBody(await call(`${svc.url}/v1/auth/introspect`, undefined, from('198.51.100.10')), 401, 'unauthorized');
    const good = await svc.key(['events:read']);
    expect((await introspect(good.key, '198.51.100.10')).status).toBe(200);
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
