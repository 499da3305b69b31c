// POST /v1/ingest/ais and /v1/ingest/gate against the running API, real PostgreSQL (credentials) and
// the real broker: 202 when every item is accepted, 422 when some are rejected, each item by index.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authFeature, ingestFeature } from '../../../../app/features.ts';
import type { InRecord } from '../../../../platform/kafka/index.ts';
import { reading } from '../../../support/gate-readings.ts';
import { readTopic } from '../../../support/ingest.ts';
import { call, expectErrorBody, startTestService, type TestService } from '../../../support/service.ts';
import { consumeUntil, unique, withAdmin } from '../../../support/stack.ts';
import { topicSpecs } from '../../../../platform/topics.ts';
import { valueOf } from '../../../support/codec.ts';

const POSITION = '!AIVDM,1,1,,B,13A><b0P010qaGPOo2Gcl?w208C?,0*04';
const STATIC = ['!AIVDM,2,1,9,B,55R3Vn82=ILTQ3KKS>1<D60Dq@E918U<F222221J1`?164vc03S1CCAD,0*2A', '!AIVDM,2,2,9,B,`88888888888880,2*76'];
const BAD_CHECKSUM = '!AIVDM,1,1,,B,13A><b0P010qaGPOo2Gcl?w208C?,0*05';

describe('HTTP ingest', () => {
  const prefix = `${unique('http')}.`;
  let svc: TestService;
  let sensor: { id: string; key: string };
  const url = (path: string) => `${svc.url}/v1${path}`;
  const value = (r: InRecord) => valueOf(r) as Record<string, unknown>;

  beforeAll(async () => {
    svc = await startTestService({ PSS_TOPIC_PREFIX: prefix, PSS_RATE_LIMIT_BURST: '10000', PSS_INGEST_HTTP_MAX_ITEMS: '50' }, [authFeature, ingestFeature]);
    sensor = await svc.key(['ingest:write']);
  });
  afterAll(async () => {
    await svc?.stop();
    await withAdmin((admin) => admin.deleteTopics(topicSpecs(prefix).map((t) => t.name)));
  });

  it('needs ingest:write, and an ingest:write key can do nothing else', async () => {
    const reader = await svc.key(['events:read']);
    expectErrorBody(await call(url('/ingest/ais'), reader.key, { method: 'POST', json: { sentences: [POSITION] } }), 403, 'forbidden');
    expectErrorBody(await call(url('/ingest/gate'), undefined, { method: 'POST', json: reading() }), 401, 'unauthorized');
    expectErrorBody(await call(url('/auth/api-keys'), sensor.key), 403, 'forbidden');
  });

  it('answers 202 for NMEA lines that are all accepted, once Kafka has them', async () => {
    const res = await call(url('/ingest/ais'), sensor.key, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: [POSITION, ...STATIC].join('\r\n') + '\r\n' });
    expect(res.status).toBe(202);
    expect(res.json.data).toMatchObject({ received: 3, accepted_count: 3, rejected_count: 0, skipped_count: 0 });
    expect(res.json.data.accepted.map((a: { index: number }) => a.index)).toEqual([0, 1, 2]);
    const statics = await readTopic(`${prefix}ais.static`, 1);
    expect(statics.map((r) => r.key)).toEqual(['371255000']);
    expect(value(statics[0] as InRecord)).toMatchObject({ mmsi: 371255000, name: 'SEA ENTERPRISE', source: `http:${sensor.id}` });
  });

  it('answers 422 naming each rejected line by index and reason, accepts the rest, dead-letters the bad ones', async () => {
    const body = { sentences: [POSITION, BAD_CHECKSUM, '$GPRMC,213950.00,A,5250.5378,N,00542.6548,E,0.021,,070420,,,A*78', 17] };
    const res = await call(url('/ingest/ais'), sensor.key, { method: 'POST', json: body });
    expectErrorBody(res, 422, 'validation_error');
    const details = res.json.error.details;
    expect(details).toMatchObject({ received: 4, accepted_count: 1, rejected_count: 2, skipped_count: 1 });
    expect(details.accepted).toEqual([{ index: 0, mmsi: expect.any(Number), msg_type: 1 }]);
    expect(details.rejected).toEqual([
      { index: 1, reason: 'bad_checksum', detail: expect.stringContaining('checksum') },
      { index: 3, reason: 'item_invalid', detail: 'a sentence must be a string' },
    ]);
    expect(details.skipped).toEqual([{ index: 2, reason: 'not_ais' }]);
    const letters = (await readTopic(`${prefix}ingest.deadletter`, 2)).map(value);
    expect(letters.map((l) => l.reason).sort()).toEqual(['bad_checksum', 'item_invalid']);
    expect(letters.every((l) => l.source === `http:${sensor.id}`)).toBe(true);
  });

  it('takes decoded reports, validated against the AIS schemas', async () => {
    const report = { msg_type: 18, mmsi: 244730001, lat: 52.84, lon: 5.71, sog: 0.1, reported_at: '2024-05-01T10:00:00Z' };
    const ok = await call(url('/ingest/ais'), sensor.key, { method: 'POST', json: { reports: [report] } });
    expect(ok.status).toBe(202);
    const bad = await call(url('/ingest/ais'), sensor.key, { method: 'POST', json: { reports: [report, { ...report, lon: 200 }] } });
    expectErrorBody(bad, 422, 'validation_error');
    expect(bad.json.error.details.rejected).toEqual([{ index: 1, reason: 'report_invalid', detail: expect.stringContaining('/lon must be <= 180') }]);
    const positions = (await readTopic(`${prefix}ais.positions`, 4)).map(value);
    expect(positions.filter((p) => p.mmsi === 244730001)).toHaveLength(2);
  });

  it('derives the vessel category of a decoded static report from its ship type, as for NMEA', async () => {
    const res = await call(url('/ingest/ais'), sensor.key, { method: 'POST', json: { reports: [{ msg_type: 5, mmsi: 244730052, name: 'HARBOUR TUG', ship_type: 52 }] } });
    expect(res.status).toBe(202);
    const tug = (records: InRecord[]) => records.map(value).find((s) => s.mmsi === 244730052);
    expect(tug(await consumeUntil(`${prefix}ais.static`, (seen) => tug(seen) !== undefined, { timeoutMs: 15_000 }))).toMatchObject({ ship_type: 52, ship_category: 'tug', name: 'HARBOUR TUG' });
  });

  it('answers 202 for a gate reading, with the ISO 6346 finding, keyed by gate', async () => {
    const res = await call(url('/ingest/gate'), sensor.key, { method: 'POST', json: reading({ reading_id: 'r-1', container: { id: 'CSQU3054384' } }) });
    expect(res.status).toBe(202);
    expect(res.json.data.accepted).toEqual([{ index: 0, reading_id: 'r-1', gate: 'gate-north', findings: ['container_check_digit_invalid'] }]);
    const readings = await readTopic(`${prefix}gate.readings`, 1);
    expect(readings[0]?.key).toBe('gate-north');
    expect(value(readings[0] as InRecord)).toMatchObject({ reading_id: 'r-1', findings: ['container_check_digit_invalid'], source: `http:${sensor.id}` });
  });

  it('answers 422 for an array with an invalid reading, accepting the valid ones', async () => {
    const res = await call(url('/ingest/gate'), sensor.key, { method: 'POST', json: [reading({ reading_id: 'r-2' }), { gate: 'g' }] });
    expectErrorBody(res, 422, 'validation_error');
    expect(res.json.error.details.accepted.map((a: { reading_id: string }) => a.reading_id)).toEqual(['r-2']);
    expect(res.json.error.details.rejected).toEqual([{ index: 1, reason: 'reading_invalid', detail: expect.stringContaining('/reading_id is required') }]);
  });

  it('answers 422 for a reading whose evidence URL is not http(s), naming the field (regression: javascript: URLs were kept)', async () => {
    const res = await call(url('/ingest/gate'), sensor.key, { method: 'POST', json: reading({ reading_id: 'r-js', vehicle: { plate: 'AB123CD', plate_image_url: 'javascript:alert(document.cookie)' } }) });
    expectErrorBody(res, 422, 'validation_error');
    expect(res.json.error.details.accepted).toEqual([]);
    expect(res.json.error.details.rejected).toEqual([{ index: 0, reason: 'reading_invalid', detail: expect.stringContaining('/vehicle/plate_image_url must match pattern') }]);
  });

  it('refuses bodies it cannot read: wrong media type, wrong shape, too many items, broken JSON', async () => {
    expectErrorBody(await call(url('/ingest/gate'), sensor.key, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' }), 415, 'unsupported_media_type');
    expectErrorBody(await call(url('/ingest/ais'), sensor.key, { method: 'POST', json: { lines: [POSITION] } }), 422, 'validation_error');
    expectErrorBody(await call(url('/ingest/ais'), sensor.key, { method: 'POST', json: { sentences: [] } }), 422, 'validation_error');
    expectErrorBody(await call(url('/ingest/ais'), sensor.key, { method: 'POST', json: { sentences: Array(51).fill(POSITION) } }), 413, 'payload_too_large');
    expectErrorBody(await call(url('/ingest/gate'), sensor.key, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"gate":' }), 400, 'invalid_json');
  });
});
