// Issue 14, "Done means": deliveries through the real service (event store -> relay -> security.events ->
// matcher -> Postgres queue -> dispatcher) to a plain node:http receiver on loopback, with the time of the
// retry schedule moved by a manual clock.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authFeature, webhooksFeature } from '../../../../app/features.ts';
import { storeEvents } from '../../../../events/store.ts';
import { createPool, inTransaction } from '../../../../platform/postgres.ts';
import { topicSpecs } from '../../../../platform/topics.ts';
import type { SecurityEvent } from '../../../../schemas/event.ts';
import { ManualClock } from '../../../support/clock.ts';
import { testEvent } from '../../../support/security-events.ts';
import { call, expectErrorBody, startTestService, type TestService } from '../../../support/service.ts';
import { unique, withAdmin } from '../../../support/stack.ts';
import { eventually, startReceiver, type Receiver } from '../../../support/webhook-receiver.ts';

const SECRET = 'whsec_delivery_0123456789abcdef';
const DELAYS_S = [30, 120, 600, 1800, 3600, 10800, 21600];

describe('webhook deliveries', () => {
  const prefix = `${unique('whdl')}.`;
  const module = `webhooks.test-${Math.random().toString(36).slice(2, 8)}`;
  const clock = new ManualClock();
  let svc: TestService;
  let key: string;
  let receiver: Receiver;
  let n = 0;
  const url = (path: string) => `${svc.url}/v1${path}`;

  const createHook = async (path: string, extra: Record<string, unknown> = {}) => {
    const res = await call(url('/webhooks'), key, { method: 'POST', json: { name: `hook ${path}`, url: receiver.url(path), events: ['zone_entry', 'seal_violation'], secret: SECRET, ...extra } });
    expect(res.status).toBe(201);
    return res.json.data.id as string;
  };
  const event = (over: Partial<SecurityEvent> = {}): SecurityEvent => ({ ...testEvent(module, n++), ...over });
  const publish = async (...events: SecurityEvent[]) => {
    await inTransaction(svc.context.pool, (c) => storeEvents(c, events));
    svc.context.relay.wake();
  };
  const at = (path: string) => receiver.received.filter((r) => r.path === path);
  const delivery = async (webhookId: string, eventId: string) =>
    (await svc.context.pool.query<{ id: string; status: string; attempts: number; next_attempt_at: Date | null }>('SELECT id, status, attempts, next_attempt_at FROM webhook_deliveries WHERE webhook_id = $1 AND event_id = $2', [webhookId, eventId])).rows[0];
  const hook = async (id: string) => (await call(url(`/webhooks/${id}`), key)).json.data;

  beforeAll(async () => {
    receiver = await startReceiver();
    svc = await startTestService({ PSS_TOPIC_PREFIX: prefix, PSS_RATE_LIMIT_BURST: '10000', PSS_WEBHOOK_ALLOW_LOOPBACK: 'true', PSS_WEBHOOK_TIMEOUT_MS: '5000' }, [authFeature, webhooksFeature({ clock })]);
    key = (await svc.key(['webhooks:write', 'webhooks:read'])).key;
  });
  afterAll(async () => {
    // The service first: a DELETE of several webhooks locks them in its scan order, and a dispatcher
    // recording attempts of two of them (in id order) meanwhile can deadlock with it.
    const databaseUrl = svc?.context.config.databaseUrl;
    await svc?.stop();
    if (databaseUrl !== undefined) {
      const pool = createPool(databaseUrl, 1);
      await pool.query('DELETE FROM webhooks WHERE url LIKE $1', [`${receiver.url('')}%`]);
      await pool.query('DELETE FROM security_events WHERE source_module = ANY($1)', [[module, 'webhooks']]);
      await pool.end();
    }
    await receiver?.close();
    await withAdmin((a) => a.deleteTopics(topicSpecs(prefix).map((t) => t.name)));
  });

  it('POSTs the spec body with every spec header and a signature node:crypto verifies', async () => {
    const id = await createHook('/signed', { headers: { 'X-Team': 'harbour' } });
    const e = event();
    await publish(e);
    await eventually(() => at('/signed').length > 0);
    const [got] = at('/signed');
    expect(got).toBeDefined();
    const h = got!.headers;
    const d = await delivery(id, e.id);
    expect(h['content-type']).toBe('application/json');
    expect(h['user-agent']).toBe('Service-Webhooks/1.0');
    expect(h['x-service-webhook-id']).toBe(id);
    expect(h['x-service-delivery-id']).toBe(d?.id);
    expect(h['x-service-event-type']).toBe('zone_entry');
    expect(h['x-team']).toBe('harbour');
    expect(h['x-service-timestamp']).toBe(String(Math.floor(clock.now() / 1000)));
    const expected = Buffer.from(`sha256=${createHmac('sha256', SECRET).update(`${h['x-service-timestamp']}.`).update(got!.raw).digest('hex')}`);
    const given = Buffer.from(String(h['x-service-signature']));
    expect(given.length === expected.length && timingSafeEqual(given, expected)).toBe(true);
    expect(got!.body).toEqual({
      id: d?.id, webhook_id: id, attempt: 1, delivered_at: expect.any(String),
      event: { id: e.id, type: e.type, timestamp: e.timestamp, category: e.category, severity: e.severity, title: e.title, description: e.description, location: e.location, metadata: e.metadata },
    });
    await eventually(async () => (await delivery(id, e.id))?.status === 'delivered');
    const record = await hook(id);
    expect(record).toMatchObject({ success_count: 1, failure_count: 0, health: { status: 'healthy', success_count: 1, success_rate_percent: 100 } });
    expect(record.last_triggered_at).not.toBeNull();
    expect(record.health.response_time_p50_ms).toBeGreaterThan(0);
    const history = await call(url(`/webhooks/${id}/deliveries?per_page=10`), key);
    expect(history.json.data).toEqual([expect.objectContaining({ id: d?.id, event_type: 'zone_entry', status: 'delivered', attempts: 1, response_code: 200, delivered_at: expect.any(String) })]);
    expect(history.json.data[0].first_attempt_error).toBeUndefined();
  });

  it('delivers only what matches events, min_severity, categories and zones', async () => {
    const all = await createHook('/f-all', { events: ['*'], categories: ['maritime', 'gate'] });
    const types = await createHook('/f-types', { events: ['seal_violation'] });
    const severe = await createHook('/f-critical', { events: ['*'], categories: ['maritime', 'gate'], min_severity: 'critical' });
    const gate = await createHook('/f-gate', { events: ['*'], categories: ['gate'] });
    const zoned = await createHook('/f-zone', { events: ['*'], categories: ['maritime', 'gate'], zones: ['North basin'] });
    const inZone = event({ location: { lat: 55.7, lng: 12.6, zone: 'north BASIN' } });
    const critical = event({ severity: 'critical' });
    const gateEvent = { ...testEvent(module, n++, 'gate') };
    await publish(inZone, critical, gateEvent);
    await eventually(() => at('/f-all').length >= 3 && at('/f-zone').length >= 1 && at('/f-critical').length >= 1 && at('/f-gate').length >= 1 && at('/f-types').length >= 1);
    const ids = (path: string) => at(path).map((r) => r.body.event.id).sort();
    expect(ids('/f-all')).toEqual([inZone.id, critical.id, gateEvent.id].sort());
    expect(ids('/f-types')).toEqual([gateEvent.id]);
    expect(ids('/f-critical')).toEqual([critical.id]);
    expect(ids('/f-gate')).toEqual([gateEvent.id]);
    expect(ids('/f-zone')).toEqual([inZone.id]);
    expect([all, types, severe, gate, zoned]).toHaveLength(5);
  });

  it('retries on the exact schedule, then fails: health failing and an admin event', async () => {
    receiver.answer.set('/retry', 503);
    const id = await createHook('/retry');
    const e = event();
    await publish(e);
    await eventually(() => at('/retry').length === 1);
    for (let attempt = 2; attempt <= 8; attempt++) {
      await eventually(async () => (await delivery(id, e.id))?.attempts === attempt - 1);
      const d = await delivery(id, e.id);
      expect(d?.status).toBe('pending');
      expect(d!.next_attempt_at!.getTime() - clock.now()).toBe(DELAYS_S[attempt - 2]! * 1000);
      clock.advance(DELAYS_S[attempt - 2]! * 1000 - 1);
      svc.context.relay.wake();
      expect(at('/retry')).toHaveLength(attempt - 1);
      clock.advance(1);
      await eventually(() => at('/retry').length === attempt);
      expect(at('/retry')[attempt - 1]?.body.attempt).toBe(attempt);
    }
    await eventually(async () => (await delivery(id, e.id))?.status === 'failed');
    expect(await delivery(id, e.id)).toMatchObject({ status: 'failed', attempts: 8, next_attempt_at: null });
    const record = await hook(id);
    expect(record).toMatchObject({ active: true, failure_count: 8, success_count: 0, health: { status: 'failing', failure_count: 8, success_rate_percent: 0, last_failure_reason: 'HTTP 503', failures_by_reason: { '5xx': 8 } } });
    const alerts = await svc.context.pool.query<{ body: SecurityEvent }>(`SELECT body FROM security_events WHERE source_module = 'webhooks' AND body->>'source_device' = $1`, [id]);
    expect(alerts.rows.map((r) => r.body)).toEqual([expect.objectContaining({ type: 'system_health_change', category: 'system', severity: 'high', metadata: expect.objectContaining({ webhook_id: id, reason: 'failing' }) })]);
    const history = await call(url(`/webhooks/${id}/deliveries?status=failed`), key);
    expect(history.json.data).toEqual([expect.objectContaining({ status: 'failed', attempts: 8, response_code: 503, first_attempt_error: 'HTTP 503' })]);

    // Replay of one delivery: attempt 9 of the same delivery id, once the endpoint works again.
    receiver.answer.set('/retry', 200);
    const replay = await call(url(`/webhooks/${id}/deliveries/${history.json.data[0].id}/replay`), key, { method: 'POST' });
    expect(replay.status).toBe(202);
    expect(replay.json.data.status).toBe('pending');
    await eventually(() => at('/retry').length === 9);
    expect(at('/retry')[8]?.body).toMatchObject({ id: history.json.data[0].id, attempt: 9 });
    await eventually(async () => (await delivery(id, e.id))?.status === 'delivered');
    expect((await hook(id)).health.status).toBe('healthy');
    expectErrorBody(await call(url(`/webhooks/${id}/deliveries/dlv_nope/replay`), key, { method: 'POST' }), 404, 'not_found');
  });

  it('deactivates after three consecutive full failures; a range replay with filters and a dry run brings them back, paced', async () => {
    receiver.answer.set('/dead', 500);
    const id = await createHook('/dead');
    const events = [event(), event({ severity: 'critical' }), event({ type: 'seal_violation', category: 'gate', location: {} })];
    await publish(...events);
    await eventually(() => at('/dead').length === 3);
    for (let round = 2; round <= 8; round++) {
      await eventually(async () => (await svc.context.pool.query(`SELECT 1 FROM webhook_deliveries WHERE webhook_id = $1 AND attempts = $2`, [id, round - 1])).rowCount === 3);
      clock.advance(7 * 3600_000);
      await eventually(() => at('/dead').length === 3 * round);
    }
    await eventually(async () => (await hook(id)).active === false);
    expect(await hook(id)).toMatchObject({ active: false, disabled_reason: 'consecutive_failures', health: { status: 'failing' } });
    const reasons = await svc.context.pool.query<{ reason: string }>(`SELECT body->'metadata'->>'reason' AS reason FROM security_events WHERE body->>'source_device' = $1 ORDER BY occurred_at, id`, [id]);
    expect(reasons.rows.map((r) => r.reason).sort()).toEqual(['deactivated', 'failing', 'failing']);

    const range = { start_date: new Date(Date.now() - 3600_000).toISOString(), end_date: new Date(Date.now() + 60_000).toISOString() };
    expectErrorBody(await call(url(`/webhooks/${id}/replay`), key, { method: 'POST', json: range }), 409, 'resource_conflict');
    expect((await call(url(`/webhooks/${id}`), key, { method: 'PUT', json: { active: true } })).json.data).toMatchObject({ active: true, disabled_reason: null });
    const dry = async (extra: Record<string, unknown>) => (await call(url(`/webhooks/${id}/replay`), key, { method: 'POST', json: { ...range, status: 'failed', dry_run: true, ...extra } })).json.data.matched;
    expect(await dry({})).toBe(3);
    expect(await dry({ event_type: 'seal_violation' })).toBe(1);
    expect(await dry({ severity: 'critical' })).toBe(1);
    expect(await dry({ zone: 'ZONE_TEST' })).toBe(2);
    expect(await dry({ status: 'delivered' })).toBe(0);
    expect(at('/dead')).toHaveLength(24);
    receiver.answer.set('/dead', 200);
    const replay = await call(url(`/webhooks/${id}/replay`), key, { method: 'POST', json: { ...range, zone: 'zone_test' } });
    expect(replay.status).toBe(202);
    expect(replay.json.data).toMatchObject({ matched: 2, scheduled: 2, per_second: 10 });
    const due = await svc.context.pool.query<{ next_attempt_at: Date }>(`SELECT next_attempt_at FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'pending' ORDER BY next_attempt_at`, [id]);
    // The first is due now (and may be claimed already: then due again only when its lease ends); the second 1/10 s later.
    const offsets = due.rows.map((r) => r.next_attempt_at.getTime() - clock.now());
    expect(offsets).toContain(100);
    expect(offsets.every((o) => o === 0 || o === 100 || o === 35_000)).toBe(true);
    await eventually(() => at('/dead').length === 25);
    // The dispatcher finds it at its next poll (PSS_WEBHOOK_POLL_MS, 200 ms of the manual clock).
    clock.advance(200);
    await eventually(() => at('/dead').length === 26);
    await eventually(async () => (await svc.context.pool.query(`SELECT 1 FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'delivered'`, [id])).rowCount === 2);
    expect(new Set(at('/dead').slice(24).map((r) => r.body.attempt))).toEqual(new Set([9]));
  });

  it('410 disables the webhook for good and cancels what was pending', async () => {
    receiver.answer.set('/gone', 500);
    const id = await createHook('/gone');
    const first = event();
    await publish(first);
    await eventually(async () => (await delivery(id, first.id))?.attempts === 1);
    receiver.answer.set('/gone', 410);
    const second = event();
    await publish(second);
    await eventually(async () => (await hook(id)).active === false);
    expect(await hook(id)).toMatchObject({ active: false, disabled_reason: 'gone' });
    expect((await delivery(id, first.id))?.status).toBe('cancelled');
    expect((await delivery(id, second.id))?.status).toBe('failed');
    expectErrorBody(await call(url(`/webhooks/${id}`), key, { method: 'PUT', json: { active: true } }), 409, 'resource_conflict');
    await publish(event());
    clock.advance(60_000);
    expect(at('/gone')).toHaveLength(2);
  });

  it('sends a synthetic test event of the requested type and answers with the result', async () => {
    // A test send ignores the webhook's filters; these keep the other tests' events away from it.
    const id = await createHook('/test-send', { events: ['fence_tamper'] });
    const res = await call(url(`/webhooks/${id}/test`), key, { method: 'POST', json: { event_type: 'perimeter_breach' } });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ event_type: 'perimeter_breach', status: 'delivered', attempts: 1, response_code: 200, test: true });
    const [got] = at('/test-send');
    expect(got?.body.event).toMatchObject({ type: 'perimeter_breach', category: 'perimeter', severity: 'high', metadata: { test: true } });
    expect(got?.headers['x-service-event-type']).toBe('perimeter_breach');
    expect((await hook(id)).success_count).toBe(0);
    expectErrorBody(await call(url(`/webhooks/${id}/test`), key, { method: 'POST', json: { event_type: 'no_such' } }), 422, 'validation_error');
    expectErrorBody(await call(url('/webhooks/wh_nope/test'), key, { method: 'POST', json: { event_type: 'zone_entry' } }), 404, 'not_found');
  });

  it('sends a test zone_entry a receiver written against the spec can read: lat, lng and zone, vessel and zone metadata (issue 21)', async () => {
    const id = await createHook('/test-send-zone', { events: ['fence_tamper'] });
    const res = await call(url(`/webhooks/${id}/test`), key, { method: 'POST', json: { event_type: 'zone_entry' } });
    expect(res.json.data).toMatchObject({ event_type: 'zone_entry', status: 'delivered', test: true });
    const [got] = at('/test-send-zone');
    expect(got?.body.event.location).toEqual({ lat: expect.any(Number), lng: expect.any(Number), zone: expect.any(String) });
    expect(got?.body.event).toMatchObject({ type: 'zone_entry', category: 'maritime', title: expect.stringMatching(/^Test event: /) });
    expect(got?.body.event.metadata).toMatchObject({ test: true, mmsi: expect.any(Number), zone_id: expect.any(String), zone_name: got?.body.event.location.zone });
  });
});
