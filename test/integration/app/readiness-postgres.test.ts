import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDeadline } from '../../../platform/deadline.ts';
import { call, expectErrorBody, startTestService, type TestService } from '../../support/service.ts';
import { testConfig } from '../../support/stack.ts';
import { startTcpProxy, targetOf, throughProxy, type TcpProxy } from '../../support/tcp-proxy.ts';

// Issue 8, defect 8: frozen Postgres connections held the processor for a whole outage with nothing in
// /readyz. The service's connections go through a proxy that freezes them (see tcp-proxy.ts).

interface Readiness {
  failing: string[];
  checks: Record<string, { ok: boolean; error?: string }>;
}

describe('/readyz while Postgres connections stop answering', () => {
  let proxy: TcpProxy;
  let svc: TestService;
  let key: string;

  beforeAll(async () => {
    const databaseUrl = testConfig().databaseUrl;
    proxy = await startTcpProxy(targetOf(databaseUrl));
    svc = await startTestService({
      PSS_DATABASE_URL: throughProxy(databaseUrl, proxy),
      // One connection, as when every connection of the pool is held by a frozen query.
      PSS_DATABASE_POOL_SIZE: '1',
      PSS_DATABASE_STATEMENT_TIMEOUT_MS: '500',
      PSS_DATABASE_CONNECT_TIMEOUT_MS: '500',
    });
    key = (await svc.key(['events:read'])).key;
  });
  afterAll(async () => {
    proxy?.thaw();
    await svc?.stop();
    await proxy?.close();
  });

  const ready = async () => {
    const res = await fetch(`${svc.url}/readyz`);
    return { status: res.status, body: (await res.json()) as Readiness };
  };
  const untilReady = () => expect.poll(async () => (await ready()).status, { timeout: 20_000, interval: 250 }).toBe(200);

  it('answers 503 naming postgres while the connections are frozen, and 200 again after they thaw', async () => {
    await untilReady();
    proxy.freeze();
    for (let i = 0; i < 3; i++) {
      const down = await ready();
      expect(down.status).toBe(503);
      expect(down.body.failing).toEqual(['postgres']);
    }
    // A request that needs Postgres meanwhile: a dependency is unavailable, not an internal error.
    expectErrorBody(await call(`${svc.url}/v1/auth/introspect`, key), 503, 'service_unavailable');
    proxy.thaw();
    await untilReady();
  });

  it('reports a query of another part of the service that timed out, though a new connection answers', async () => {
    await untilReady();
    // Frozen and thawed: the pooled connection is dead, new ones work, as after a failover.
    proxy.freeze();
    proxy.thaw();
    // What the processor does with the pool; it used to wait here for the whole outage.
    await expect(withDeadline(svc.context.pool.query('SELECT 1'), 5_000)).rejects.toThrow('Query read timeout');
    const down = await ready();
    expect(down.status).toBe(503);
    expect(down.body.failing).toEqual(['postgres']);
    expect(down.body.checks.postgres?.error).toMatch(/timed out/);
    await untilReady();
  });
});
