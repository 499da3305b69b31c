import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectErrorBody, startTestService, type TestService } from '../../support/service.ts';
import { testConfig } from '../../support/stack.ts';

// Issue 8, defect 6: a credential sent in any query parameter must not reach the request log, and the
// logger must not hide PostgreSQL error codes (`err.code`) while it hides OAuth codes.

interface LogLine {
  level: number;
  msg: string;
  req?: { id: string; url: string };
  err?: { code?: unknown; message?: string };
}

describe('the request log', () => {
  let svc: TestService;
  let key: string;

  beforeAll(async () => {
    svc = await startTestService();
    key = (await svc.key(['events:read'])).key;
  });
  afterAll(() => svc?.stop());

  const lines = (): LogLine[] => svc.logs().trim().split('\n').map((l) => JSON.parse(l) as LogLine);
  const urlLoggedFor = (requestId: string | null) => lines().find((l) => l.req?.id === requestId && l.msg === 'request completed')?.req?.url;

  it('redacts every query parameter that can carry a credential, and keeps the path and the other parameters', async () => {
    const names = [
      'token', 'access_token', 'api_key', 'apikey', 'key', 'refresh_token', 'client_secret', 'code', 'password', 'secret',
      'signature', 'Access_Token', 'access%5Ftoken', 'X-Api-Key', 'auth', 'credential', 'session_id',
    ];
    for (const name of names) {
      const res = await call(`${svc.url}/v1/auth/introspect?page=2&${name}=${encodeURIComponent(key)}&sort=name`, undefined);
      expectErrorBody(res, 401, 'unauthorized');
      const url = urlLoggedFor(res.headers.get('x-request-id'));
      expect(url, name).toBe(`/v1/auth/introspect?page=2&${name}=[redacted]&sort=name`);
    }
    // One of our credentials is recognised by its shape under any name, in the path too.
    const anyName = await call(`${svc.url}/v1/auth/introspect?q=${key}`, undefined);
    expect(urlLoggedFor(anyName.headers.get('x-request-id'))).toBe('/v1/auth/introspect?q=[redacted]');
    const inPath = await call(`${svc.url}/v1/auth/api-keys/${key}`, undefined);
    expect(urlLoggedFor(inPath.headers.get('x-request-id'))).toBe('/v1/auth/api-keys/[redacted]');
    const token = await fetch(`${svc.url}/oauth/token?client_secret=${key}&code=${key}`, { method: 'POST' });
    expect(urlLoggedFor(token.headers.get('x-request-id'))).toBe('/oauth/token?client_secret=[redacted]&code=[redacted]');
    expect(svc.logs()).not.toContain(key.slice(-43));
  });

  it('keeps the PostgreSQL error code of a failed request', async () => {
    // A real SQLSTATE: hold a lock the key lookup waits on, then end the waiting backend (57P01).
    const admin = new pg.Client({ connectionString: testConfig().databaseUrl });
    await admin.connect();
    try {
      await admin.query('BEGIN');
      await admin.query('LOCK TABLE api_keys IN ACCESS EXCLUSIVE MODE');
      const pending = call(`${svc.url}/v1/auth/introspect`, key);
      let terminated = 0;
      for (let i = 0; i < 200 && terminated === 0; i++) {
        const { rows } = await admin.query<{ ended: boolean }>(
          // Whoever waits for this session's lock: the service's key lookup (its query text may not show yet).
          'SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE pg_backend_pid() = ANY(pg_blocking_pids(pid))',
        );
        terminated = rows.length;
        if (terminated === 0) await new Promise((r) => setTimeout(r, 25));
      }
      expect(terminated).toBe(1);
      expectErrorBody(await pending, 503, 'service_unavailable');
    } finally {
      await admin.query('ROLLBACK').catch(() => undefined);
      await admin.end();
    }
    const failed = lines().find((l) => l.level === 50 && l.msg === 'request failed');
    expect(failed?.err?.code).toBe('57P01');
  });
});
