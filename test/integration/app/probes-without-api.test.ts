// Issue 27: an instance without the api role (an ingest or processors pod) answers its orchestrator's probes
// and Prometheus on PSS_HTTP_PORT: /healthz, /readyz (with the topics check) and /metrics.
import { afterAll, describe, expect, it } from 'vitest';
import { startChildService, type ChildService } from '../../support/child-service.ts';
import { testConfig, unique } from '../../support/stack.ts';

describe('an instance without the api role', () => {
  let child: ChildService | undefined;
  afterAll(() => child?.kill('SIGTERM'));

  it('serves /healthz, /readyz and /metrics and nothing of the API', async () => {
    child = await startChildService(testConfig({ PSS_TOPIC_PREFIX: `${unique('probes')}.` }), 'ingest');
    const started = child.logs().map((l) => JSON.parse(l) as { msg?: string; health_url?: string }).find((e) => e.msg === 'service started (no api role)');
    const base = started?.health_url as string;
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const ready = await fetch(`${base}/readyz`);
    const body = (await ready.json()) as { checks: Record<string, { ok: boolean }> };
    expect(ready.status).toBe(200);
    expect(body.checks.kafka_topics?.ok).toBe(true);
    expect(await (await fetch(`${base}/metrics`)).text()).toContain('process_cpu_seconds_total');
    expect((await fetch(`${base}/v1/events`)).status).toBe(404);
  });
});
