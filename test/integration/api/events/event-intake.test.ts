// Issue 10, item 2: POST /v1/events from the perimeter, drone and system modules (type table checks,
// idempotency), GET /v1/events/{event_id}, and PATCH /v1/events/{event_id} with its change history and
// its republication on security.events, read through the codec as consumers read it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authFeature, eventsFeature } from '../../../../app/features.ts';
import type { InRecord } from '../../../../platform/kafka/index.ts';
import { topicNames, topicSpecs } from '../../../../platform/topics.ts';
import type { SecurityEvent } from '../../../../schemas/event.ts';
import { valueOf } from '../../../support/codec.ts';
import { call, expectErrorBody, startTestService, type TestService } from '../../../support/service.ts';
import { consumeUntil, unique, withAdmin } from '../../../support/stack.ts';

describe('event intake and operator changes', () => {
  const prefix = `${unique('evin')}.`;
  const module = `perimeter.test-${Math.random().toString(36).slice(2, 8)}`;
  let svc: TestService;
  let writer: string;
  let writerId: string;
  let reader: string;
  const url = (path: string) => `${svc.url}/v1${path}`;
  const post = (body: unknown, headers: Record<string, string> = {}, credential = writer) => call(url('/events'), credential, { method: 'POST', json: body, headers });
  const patch = (id: string, body: unknown, credential = writer) => call(url(`/events/${id}`), credential, { method: 'PATCH', json: body });
  const breach = (extra: Record<string, unknown> = {}) => ({
    type: 'perimeter_breach', source_module: module, source_device: 'fence-7', title: 'Barrier breached at gate 4',
    description: 'Cut fence detected', location: { lat: 55.69, lng: 12.6, zone: 'North fence' }, metadata: { camera_id: 'cam-12' }, ...extra,
  });
  const detailsOf = (res: Awaited<ReturnType<typeof call>>) => {
    expectErrorBody(res, 422, 'validation_error');
    return res.json.error.details as { location: string; path: string; message: string }[];
  };
  const recordsOf = (seen: InRecord[], id: string) => seen.filter((r) => r.key === id);

  beforeAll(async () => {
    svc = await startTestService({ PSS_TOPIC_PREFIX: prefix, PSS_RATE_LIMIT_BURST: '10000' }, [authFeature, eventsFeature]);
    ({ key: writer, id: writerId } = await svc.key(['events:write', 'events:read']));
    reader = (await svc.key(['events:read'])).key;
  });
  afterAll(async () => {
    await svc?.context.pool.query('DELETE FROM security_events WHERE source_module = $1', [module]);
    await svc?.stop();
    await withAdmin((a) => a.deleteTopics(topicSpecs(prefix).map((t) => t.name)));
  });

  it('stores a perimeter event with the server\'s defaults, answers 201, and serves it by id', async () => {
    const before = Date.now();
    const res = await post(breach());
    expect(res.status).toBe(201);
    const event = res.json.data as SecurityEvent;
    expect(event).toEqual({
      id: expect.stringMatching(/^evt_[0-9a-f]{32}$/), type: 'perimeter_breach', timestamp: expect.any(String),
      category: 'perimeter', severity: 'high', source_module: module, source_device: 'fence-7', title: 'Barrier breached at gate 4',
      description: 'Cut fence detected', location: { lat: 55.69, lng: 12.6, zone: 'North fence' }, metadata: { camera_id: 'cam-12' },
      requires_action: true, assigned_to: '', incident_id: null,
    });
    expect(Date.parse(event.timestamp)).toBeGreaterThanOrEqual(before - 1);
    expect(res.headers.get('location')).toBe(`/v1/events/${event.id}`);
    const read = await call(url(`/events/${event.id}`), reader);
    expect(read.status).toBe(200);
    expect(read.json.data).toEqual(event);
  });

  it('takes the client\'s timestamp, severity for a varying type, and requires_action; low events need no action by default', async () => {
    const health = await post({ type: 'system_health_change', severity: 'medium', source_module: module, title: 'Kafka degraded', timestamp: '2026-11-21T08:00:00+01:00' });
    expect(health.status).toBe(201);
    expect(health.json.data).toMatchObject({ category: 'system', severity: 'medium', timestamp: '2026-11-21T07:00:00.000Z', requires_action: true, source_device: '', description: '', location: {}, metadata: {} });
    const launched = await post({ type: 'mission_launched', category: 'drone', source_module: module, title: 'Patrol launched' });
    expect(launched.json.data).toMatchObject({ severity: 'low', requires_action: false });
    const told = await post({ type: 'mission_launched', source_module: module, title: 'Patrol launched', requires_action: true, incident_id: 'inc_7', assigned_to: 'pilot.one' });
    expect(told.json.data).toMatchObject({ requires_action: true, incident_id: 'inc_7', assigned_to: 'pilot.one' });
  });

  it('refuses an unknown type, a wrong category and a bad location with every problem in one 422', async () => {
    expect(detailsOf(await post({ ...breach(), type: 'teleport', location: { lat: 95, lng: 12 } }))).toEqual([
      { location: 'body', path: '/location/lat', message: 'must be <= 90' },
      { location: 'body', path: '/type', message: expect.stringMatching(/unknown event type "teleport"; POST \/v1\/events takes motion_detected, perimeter_breach, .*system_health_change/) },
    ]);
    expect(detailsOf(await post({ ...breach(), category: 'drone', severity: 'low', location: { lat: 55 } }))).toEqual([
      { location: 'body', path: '/location', message: 'must have property lng when property lat is present' },
      { location: 'body', path: '/category', message: 'perimeter_breach events are in category perimeter, not drone' },
      { location: 'body', path: '/severity', message: 'perimeter_breach events are high, not low' },
    ]);
    expect(detailsOf(await post({ type: 'system_health_change', source_module: module, title: 'x', timestamp: '2099-01-01T00:00:00Z' }))).toEqual([
      { location: 'body', path: '/timestamp', message: expect.stringContaining('in the future') },
      { location: 'body', path: '/severity', message: 'is required: system_health_change events have no fixed severity' },
    ]);
    // Incidents are the service's own (incidents/): a posted incident_* event would describe one that is not there.
    expect(detailsOf(await post({ type: 'incident_created', severity: 'high', source_module: module, title: 'x' }))).toEqual([
      { location: 'body', path: '/type', message: expect.stringContaining('incident_created events (category system) are raised by the service itself') },
    ]);
    // The service finds maritime, gate and decision events itself.
    expect(detailsOf(await post({ ...breach(), type: 'zone_entry' }))).toEqual([
      { location: 'body', path: '/type', message: expect.stringContaining('zone_entry events (category maritime) are raised by the service itself') },
    ]);
    expect(detailsOf(await post({ ...breach(), id: 'evt_00000000000000000000000000000000', category: 'nope' })).map((d) => d.path).sort()).toEqual(['/category', '/id']);
    const { rows } = await svc.context.pool.query('SELECT count(*)::int AS n FROM security_events WHERE source_module = $1 AND type <> $2', [module, 'perimeter_breach']);
    expect(rows[0].n).toBe(3);
  });

  it('stores one event for a retried request with the same Idempotency-Key, and refuses the key with other content', async () => {
    const key = { 'Idempotency-Key': `fence-7:${Math.random()}` };
    const first = await post(breach(), key);
    expect(first.status).toBe(201);
    const again = await post(breach(), key);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json.data).toEqual(first.json.data);
    // Concurrent retries: one stores, the others find it.
    const racing = await Promise.all([1, 2, 3].map(() => post(breach({ title: 'Racing' }), { 'Idempotency-Key': 'race' })));
    expect(racing.map((r) => r.status).sort()).toEqual([200, 200, 201]);
    expect(new Set(racing.map((r) => r.json.data.id)).size).toBe(1);

    const conflict = await post(breach({ title: 'Another breach' }), key);
    expectErrorBody(conflict, 409, 'resource_conflict');
    expect(conflict.json.error.message).toContain(`${first.json.data.id}, whose title differ`);
    // The key belongs to the module: another module's event with the same key is another event.
    const other = await post(breach({ source_module: `${module}.b` }), key);
    expect(other.status).toBe(201);
    expect(other.json.data.id).not.toBe(first.json.data.id);
    await svc.context.pool.query('DELETE FROM security_events WHERE source_module = $1', [`${module}.b`]);
    const bad = await post(breach(), { 'Idempotency-Key': 'spaces are not allowed' });
    expectErrorBody(bad, 400, 'bad_request');
  });

  it('answers a retry after an operator change with the event as it is now', async () => {
    const key = { 'Idempotency-Key': `after-change-${Math.random()}` };
    const first = await post(breach({ timestamp: '2026-11-21T07:00:00Z' }), key);
    await patch(first.json.data.id, { assigned_to: 'duty.officer' });
    const again = await post(breach({ timestamp: '2026-11-21T07:00:00.000+00:00' }), key);
    expect(again.status).toBe(200);
    expect(again.json.data).toEqual({ ...first.json.data, assigned_to: 'duty.officer' });
  });

  it('needs events:write to write and events:read to read', async () => {
    expectErrorBody(await post(breach(), {}, reader), 403, 'forbidden');
    const created = await post(breach());
    expectErrorBody(await patch(created.json.data.id, { requires_action: false }, reader), 403, 'forbidden');
    const other = (await svc.key(['maritime:read'])).key;
    expectErrorBody(await call(url(`/events/${created.json.data.id}`), other), 403, 'forbidden');
    expectErrorBody(await call(url('/events'), other), 403, 'forbidden');
    expectErrorBody(await call(url('/events/evt_00000000000000000000000000000000'), reader), 404, 'not_found');
    expectErrorBody(await patch('evt_00000000000000000000000000000000', { requires_action: false }), 404, 'not_found');
  });

  it('changes only the operator fields, keeps every change, and publishes each as an update', async () => {
    const created = (await post(breach())).json.data as SecurityEvent;
    expect(detailsOf(await patch(created.id, { title: 'x', severity: 'low' })).map((d) => d.path)).toEqual(['/title', '/severity']);
    expect(detailsOf(await patch(created.id, {})).map((d) => d.path)).toEqual(['']);

    const taken = await patch(created.id, { assigned_to: 'duty.officer', incident_id: 'inc_42' });
    expect(taken.status).toBe(200);
    expect(taken.json.data).toEqual({ ...created, assigned_to: 'duty.officer', incident_id: 'inc_42' });
    // Repeating what the event already says changes nothing: no history row, no record.
    expect((await patch(created.id, { assigned_to: 'duty.officer' })).json.data).toEqual(taken.json.data);
    const closed = await patch(created.id, { requires_action: false, assigned_to: '', incident_id: null });
    expect(closed.json.data).toEqual({ ...created, requires_action: false });
    expect((await call(url(`/events/${created.id}`), reader)).json.data).toEqual(closed.json.data);

    const { rows } = await svc.context.pool.query(
      'SELECT revision, credential_id, principal, auth_kind, before, after, changed_at FROM event_changes WHERE event_id = $1 ORDER BY revision',
      [created.id],
    );
    expect(rows).toEqual([
      { revision: 1, credential_id: writerId, principal: 'test-events:write+events:read', auth_kind: 'api_key', changed_at: expect.any(Date),
        before: { requires_action: true, assigned_to: '', incident_id: null }, after: { requires_action: true, assigned_to: 'duty.officer', incident_id: 'inc_42' } },
      { revision: 2, credential_id: writerId, principal: 'test-events:write+events:read', auth_kind: 'api_key', changed_at: expect.any(Date),
        before: { requires_action: true, assigned_to: 'duty.officer', incident_id: 'inc_42' }, after: { requires_action: false, assigned_to: '', incident_id: null } },
    ]);

    const topic = topicNames(prefix).securityEvents;
    const seen = await consumeUntil(topic, (s) => recordsOf(s, created.id).some((r) => r.headers.revision === '2'), { quietMs: 1_000 });
    const records = recordsOf(seen, created.id);
    // The first copy may already carry revision 1 when the change beat the relay; each revision goes out once.
    const revisions = records.map((r) => Number(r.headers.revision));
    expect(new Set(revisions).size).toBe(revisions.length);
    expect(revisions.at(-1)).toBe(2);
    expect(records[0]!.headers.change).toBe('created');
    expect(records.slice(1).every((r) => r.headers.change === 'updated')).toBe(true);
    expect(records.every((r) => r.headers.type === 'perimeter_breach')).toBe(true);
    expect(valueOf(records.at(-1)!)).toEqual(closed.json.data);
    const pending = await svc.context.pool.query('SELECT 1 FROM event_outbox WHERE event_id = $1', [created.id]);
    expect(pending.rows).toEqual([]);
  });

  it('publishes an update of an event already on the topic as a second record, revision 1', async () => {
    const created = (await post(breach())).json.data as SecurityEvent;
    const topic = topicNames(prefix).securityEvents;
    await consumeUntil(topic, (s) => recordsOf(s, created.id).length === 1);
    await patch(created.id, { requires_action: false });
    const seen = await consumeUntil(topic, (s) => recordsOf(s, created.id).length === 2, { quietMs: 500 });
    expect(recordsOf(seen, created.id).map((r) => [r.headers.change, r.headers.revision, (valueOf(r) as SecurityEvent).requires_action])).toEqual([
      ['created', '0', true],
      ['updated', '1', false],
    ]);
  });
});
