// Oversized input over HTTP (issue 8, defect 1): before, its dead letter carried the input whole, Kafka
// refused that record as too large, and the ingest producer retried it forever, so this request and every
// later one answered 503 and the instance took no more input, while /readyz said 200. Now input is bounded
// where it enters, dead letters are truncated, and a producer that cannot deliver shows in /readyz.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { authFeature, ingestFeature } from '../../../../app/features.ts';
import type { InRecord } from '../../../../platform/kafka/index.ts';
import { registry } from '../../../../platform/metrics.ts';
import { topicSpecs } from '../../../../platform/topics.ts';
import { reading } from '../../../support/gate-readings.ts';
import { readTopic } from '../../../support/ingest.ts';
import { startKafkaProxy, type KafkaProxy } from '../../../support/kafka-proxy.ts';
import { call, expectErrorBody, startTestService, type TestService } from '../../../support/service.ts';
import { unique, withAdmin } from '../../../support/stack.ts';
import { valueOf } from '../../../support/codec.ts';

const POSITION = '!AIVDM,1,1,,B,13A><b0P010qaGPOo2Gcl?w208C?,0*04';

/** `!AIVDM,1,1,,A,<payload>,0*hh` with a correct checksum. */
function sentence(payload: string): string {
  const body = `AIVDM,1,1,,A,${payload},0`;
  let sum = 0;
  for (let i = 0; i < body.length; i++) sum ^= body.charCodeAt(i);
  return `!${body}*${sum.toString(16).toUpperCase().padStart(2, '0')}`;
}

const value = (r: InRecord) => valueOf(r) as Record<string, unknown>;

describe('HTTP ingest of oversized input', () => {
  const prefix = `${unique('httpbig')}.`;
  let svc: TestService;
  let sensor: { id: string; key: string };
  const url = (path: string) => `${svc.url}/v1${path}`;
  const post = (path: string, init: { json?: unknown; body?: string; headers?: Record<string, string> }) => call(url(path), sensor.key, { method: 'POST', ...init });

  beforeAll(async () => {
    svc = await startTestService({ PSS_TOPIC_PREFIX: prefix, PSS_RATE_LIMIT_BURST: '10000', PSS_INGEST_HTTP_ACK_TIMEOUT_MS: '5000' }, [authFeature, ingestFeature]);
    sensor = await svc.key(['ingest:write']);
  });
  afterAll(async () => {
    await svc?.stop();
    await withAdmin((admin) => admin.deleteTopics(topicSpecs(prefix).map((t) => t.name)));
  });

  it('rejects a 2,000,000-character sentence as line_too_long at once, dead-letters it truncated, and takes the next request (regression)', async () => {
    const huge = sentence('1'.repeat(2_000_000));
    const res = await post('/ingest/ais', { headers: { 'content-type': 'text/plain' }, body: `${huge}\r\n` });
    expectErrorBody(res, 422, 'validation_error');
    expect(res.json.error.details.rejected).toEqual([{ index: 0, reason: 'line_too_long', detail: expect.stringContaining(`${huge.length} characters`) }]);

    const next = await post('/ingest/ais', { headers: { 'content-type': 'text/plain' }, body: `${POSITION}\r\n` });
    expect(next.status).toBe(202);
    expect((await fetch(`${svc.url}/readyz`)).status).toBe(200);

    const [letter] = (await readTopic(`${prefix}ingest.deadletter`, 1)).map(value);
    expect(letter).toMatchObject({ reason: 'line_too_long', truncated: true, raw_bytes: huge.length, source: `http:${sensor.id}` });
    expect((letter?.raw as string[])[0]).toBe(huge.slice(0, 4096));
  });

  it('rejects a 2 MB gate reading as record_too_large, dead-letters it truncated, and takes the next reading (regression)', async () => {
    const big = reading({ reading_id: 'big-1', lane: 'x'.repeat(2_000_000) });
    const res = await post('/ingest/gate', { json: big });
    expectErrorBody(res, 422, 'validation_error');
    expect(res.json.error.details.rejected).toEqual([{ index: 0, reason: 'record_too_large', detail: expect.stringContaining('at most 262144') }]);

    expect((await post('/ingest/gate', { json: reading({ reading_id: 'small-1' }) })).status).toBe(202);
    const letters = (await readTopic(`${prefix}ingest.deadletter`, 2)).map(value).filter((l) => l.feed === 'gate');
    expect(letters).toMatchObject([{ reason: 'record_too_large', truncated: true, raw_bytes: JSON.stringify(big).length }]);
  });

  it('rejects a decoded report larger than the item bound as record_too_large', async () => {
    const report = { msg_type: 1, mmsi: 244730001, lat: 52.84, lon: 5.71, station: 's'.repeat(300_000) };
    const res = await post('/ingest/ais', { json: { reports: [report] } });
    expectErrorBody(res, 422, 'validation_error');
    expect(res.json.error.details.rejected).toEqual([{ index: 0, reason: 'record_too_large', detail: expect.any(String) }]);
  });
});

describe('readiness of the ingest producer', () => {
  const prefix = `${unique('httpstuck')}.`;
  let proxy: KafkaProxy;
  let svc: TestService;
  let sensor: { id: string; key: string };

  beforeAll(async () => {
    proxy = await startKafkaProxy(inject('kafkaBrokers').split(',')[0] as string);
    svc = await startTestService({ PSS_TOPIC_PREFIX: prefix, PSS_KAFKA_BROKERS: proxy.address, PSS_INGEST_STUCK_AFTER_MS: '1000', PSS_INGEST_HTTP_ACK_TIMEOUT_MS: '2000' }, [authFeature, ingestFeature]);
    sensor = await svc.key(['ingest:write']);
  });
  afterAll(async () => {
    proxy?.restore();
    await svc?.stop();
    await proxy?.close();
    await withAdmin((admin) => admin.deleteTopics(topicSpecs(prefix).map((t) => t.name)));
  });

  it('answers /readyz 503 naming ingest_producer while records wait longer than PSS_INGEST_STUCK_AFTER_MS, and 200 once they are delivered', async () => {
    const ready = async () => {
      const res = await fetch(`${svc.url}/readyz`);
      return { status: res.status, body: (await res.json()) as { failing: string[]; checks: Record<string, { ok: boolean; error?: string }> } };
    };
    expect((await ready()).body.checks.ingest_producer?.ok).toBe(true);
    proxy.cut();
    const res = await call(`${svc.url}/v1/ingest/ais`, sensor.key, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: `${POSITION}\r\n` });
    expectErrorBody(res, 503, 'service_unavailable');
    const stuck = await ready();
    expect(stuck.status).toBe(503);
    expect(stuck.body.failing).toContain('ingest_producer');
    expect(stuck.body.checks.ingest_producer?.error).toMatch(/^stuck: the oldest unacknowledged batch has waited \d+ s/);

    proxy.restore();
    const deadline = Date.now() + 30_000;
    let after = await ready();
    while (after.status !== 200 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      after = await ready();
    }
    expect(after.body.checks.ingest_producer?.ok).toBe(true);
    // The request answered 503, but its record was kept and delivered once Kafka came back.
    expect(await readTopic(`${prefix}ais.positions`, 1)).toHaveLength(1);
  });
});

describe('shutdown while Kafka is unreachable', () => {
  const prefix = `${unique('httpstop')}.`;
  let proxy: KafkaProxy;

  afterAll(async () => {
    await proxy?.close();
    await withAdmin((admin) => admin.deleteTopics(topicSpecs(prefix).map((t) => t.name)));
  });

  it('gives up what Kafka has not acknowledged at the shutdown deadline, and logs and counts it (regression: lost silently)', async () => {
    proxy = await startKafkaProxy(inject('kafkaBrokers').split(',')[0] as string);
    const svc = await startTestService({ PSS_TOPIC_PREFIX: prefix, PSS_KAFKA_BROKERS: proxy.address, PSS_INGEST_HTTP_ACK_TIMEOUT_MS: '1000', PSS_SHUTDOWN_TIMEOUT_MS: '3000' }, [authFeature, ingestFeature]);
    const sensor = await svc.key(['ingest:write']);
    proxy.cut();
    const res = await call(`${svc.url}/v1/ingest/ais`, sensor.key, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: `${POSITION}\r\n` });
    expectErrorBody(res, 503, 'service_unavailable');
    const before = await undelivered();
    const stopping = Date.now();
    await svc.stop();
    expect(Date.now() - stopping).toBeLessThan(3_000);
    const givenUp = svc.logs().split('\n').filter((line) => line.includes('shutdown deadline passed before Kafka acknowledged'));
    expect(givenUp).toHaveLength(1);
    expect(JSON.parse(givenUp[0] as string)).toMatchObject({ level: 50, records: 1 });
    expect((await undelivered()) - before).toBe(1);
  });
});

async function undelivered(): Promise<number> {
  const metric = await registry.getSingleMetric('pss_ingest_undelivered_total')?.get();
  return (metric?.values ?? []).reduce((n, v) => n + v.value, 0);
}
