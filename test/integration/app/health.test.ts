import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../app/http/express-app.ts';
import { listen, type HttpServer } from '../../../app/http/server.ts';
import { FEATURES } from '../../../app/features.ts';
import { startService, type RunningService } from '../../../app/service.ts';
import { kafkaCheck, postgresCheck } from '../../../platform/readiness.ts';
import { createPool } from '../../../platform/postgres.ts';
import { startKafkaProxy, type KafkaProxy } from '../../support/kafka-proxy.ts';
import { testConfig, testLog } from '../../support/stack.ts';

interface Readiness {
  failing: string[];
  checks: Record<string, { ok: boolean }>;
}

describe('service health endpoints', () => {
  let service: RunningService;

  beforeAll(async () => {
    service = await startService(testConfig(), ['api'], testLog, FEATURES);
  });
  afterAll(() => service.stop());

  it('answers /healthz and /readyz with 200 when Kafka and Postgres answer', async () => {
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${service.url}/readyz`);
    const body = (await ready.json()) as Readiness;
    expect(ready.status).toBe(200);
    expect(body.checks.kafka!.ok).toBe(true);
    expect(body.checks.postgres!.ok).toBe(true);
    // The instance's event relay (events/relay.ts) is reported too: a stuck one makes the instance unready.
    expect(body.checks.event_relay!.ok).toBe(true);
  });

  it('serves Prometheus metrics', async () => {
    const res = await fetch(`${service.url}/metrics`);
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/^pss_process_cpu_user_seconds_total/m);
  });

  it('answers an unknown route with the spec error body and the request id', async () => {
    const res = await fetch(`${service.url}/v1/nothing-here`, { headers: { 'X-Request-Id': 'trace-123' } });
    expect(res.status).toBe(404);
    expect(res.headers.get('x-request-id')).toBe('trace-123');
    expect(await res.json()).toEqual({ error: { code: 'not_found', message: 'No route for GET /v1/nothing-here', request_id: 'trace-123' } });
  });
});

describe('readiness with an unreachable dependency', () => {
  let http: HttpServer;
  const pool = createPool(testConfig().databaseUrl, 1);

  beforeAll(async () => {
    // Port 1 on loopback refuses connections: a real unreachable broker, not a mock.
    const app = createApp({
      log: testLog,
      readiness: { postgres: postgresCheck(pool), kafka: kafkaCheck({ brokers: ['127.0.0.1:1'], clientId: 'pss-test', log: testLog }) },
    });
    http = await listen(app, '127.0.0.1', 0);
  });
  afterAll(async () => {
    await http.close();
    await pool.end();
  });

  it('answers 503 and names kafka as the failing dependency', async () => {
    const res = await fetch(`${http.url}/readyz`);
    const body = (await res.json()) as Readiness;
    expect(res.status).toBe(503);
    expect(body.failing).toEqual(['kafka']);
    expect(body.checks.postgres!.ok).toBe(true);
  });
});

describe('readiness follows Kafka going away and coming back', () => {
  let service: RunningService;
  let proxy: KafkaProxy;

  beforeAll(async () => {
    proxy = await startKafkaProxy(testConfig().kafkaBrokers[0]!);
    service = await startService(testConfig({ PSS_KAFKA_BROKERS: proxy.address }), ['api'], testLog, FEATURES);
  });
  afterAll(async () => {
    await service?.stop();
    await proxy?.close();
  });

  it('answers 503 naming kafka while the broker is unreachable, and 200 again without a restart', async () => {
    const ready = async () => {
      const res = await fetch(`${service.url}/readyz`);
      return { status: res.status, body: (await res.json()) as Readiness };
    };
    expect((await ready()).status).toBe(200);
    proxy.cut();
    const down = await ready();
    expect(down.status).toBe(503);
    expect(down.body.failing).toEqual(['kafka']);
    proxy.restore();
    expect((await ready()).status).toBe(200);
  });
});
