// Issue 14, item 1: webhook CRUD with its validation, the creation response, and what reads show.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authFeature, webhooksFeature } from '../../../../app/features.ts';
import { topicSpecs } from '../../../../platform/topics.ts';
import { call, expectErrorBody, startTestService, type TestService } from '../../../support/service.ts';
import { unique, withAdmin } from '../../../support/stack.ts';

const SECRET = 'whsec_crud_0123456789abcdefXYZ';
const valid = (extra: Record<string, unknown> = {}) => ({
  name: 'Harbour master', url: 'https://hooks.example.com/pss', events: ['zone_entry', 'seal_violation'], secret: SECRET, ...extra,
});

describe('webhook CRUD', () => {
  const prefix = `${unique('whcrud')}.`;
  let svc: TestService;
  let writer: string;
  let reader: string;
  const url = (path: string) => `${svc.url}/v1${path}`;
  const created: string[] = [];
  const create = async (body: unknown, credential = writer) => {
    const res = await call(url('/webhooks'), credential, { method: 'POST', json: body });
    if (res.status === 201) created.push(res.json.data.id);
    return res;
  };
  const problemsOf = (res: Awaited<ReturnType<typeof call>>) => {
    expectErrorBody(res, 422, 'validation_error');
    return (res.json.error.details as { path: string }[]).map((d) => d.path);
  };

  beforeAll(async () => {
    svc = await startTestService({ PSS_TOPIC_PREFIX: prefix, PSS_RATE_LIMIT_BURST: '10000' }, [authFeature, webhooksFeature()]);
    writer = (await svc.key(['webhooks:write', 'webhooks:read'])).key;
    reader = (await svc.key(['webhooks:read'])).key;
  });
  afterAll(async () => {
    if (created.length) await svc?.context.pool.query('DELETE FROM webhooks WHERE id = ANY($1)', [created]);
    await svc?.stop();
    await withAdmin((a) => a.deleteTopics(topicSpecs(prefix).map((t) => t.name)));
  });

  it('creates: the secret once, counters at 0, last_triggered_at null', async () => {
    const res = await create(valid({ min_severity: 'high', zones: ['Inner harbour'], headers: { Authorization: 'Bearer abc' } }));
    expect(res.status).toBe(201);
    expect(res.json.data).toMatchObject({
      name: 'Harbour master', url: 'https://hooks.example.com/pss', events: ['zone_entry', 'seal_violation'], min_severity: 'high', zones: ['Inner harbour'],
      secret: SECRET, active: true, success_count: 0, failure_count: 0, last_triggered_at: null, headers: { Authorization: 'Bearer abc' },
    });
    expect(res.json.data.id).toMatch(/^wh_[0-9a-f]{24}$/);
    expect(res.headers.get('location')).toBe(`/v1/webhooks/${res.json.data.id}`);
    const stored = await svc.context.pool.query<{ secret_sealed: string }>('SELECT secret_sealed FROM webhooks WHERE id = $1', [res.json.data.id]);
    expect(stored.rows[0]?.secret_sealed).not.toContain(SECRET);
  });

  it('reads show a hint of the secret, never the secret, and the health object', async () => {
    const id = (await create(valid())).json.data.id as string;
    const read = await call(url(`/webhooks/${id}`), reader);
    expect(read.status).toBe(200);
    expect(read.json.data.secret).toBeUndefined();
    expect(read.json.data.secret_hint).toBe('…fXYZ');
    expect(read.json.data.health).toMatchObject({
      status: 'healthy', success_count: 0, failure_count: 0, success_rate_percent: 100, last_success_at: null, last_failure_at: null,
      last_failure_reason: null, avg_response_time_ms: 0, window_hours: 24, response_time_p50_ms: null, response_time_p95_ms: null, failures_by_reason: {},
    });
    const list = await call(url('/webhooks?per_page=200'), reader);
    expect(list.status).toBe(200);
    expect(list.json.pagination).toMatchObject({ page: 1, per_page: 200 });
    const listed = (list.json.data as { id: string; secret?: string }[]).find((w) => w.id === id);
    expect(listed?.secret).toBeUndefined();
  });

  it('updates any subset, and deletes', async () => {
    const id = (await create(valid({ categories: ['maritime'] }))).json.data.id as string;
    const put = await call(url(`/webhooks/${id}`), writer, { method: 'PUT', json: { events: ['*'], min_severity: 'critical', categories: null, secret: 'whsec_rotated_abcdefghijk0123' } });
    expect(put.status).toBe(200);
    expect(put.json.data).toMatchObject({ id, name: 'Harbour master', events: ['*'], min_severity: 'critical', categories: null, secret_hint: '…0123' });
    expect(put.json.data.secret).toBeUndefined();
    expectErrorBody(await call(url(`/webhooks/${id}`), writer, { method: 'PUT', json: { url: 'https://10.0.0.1/x' } }), 422, 'validation_error');
    expect((await call(url(`/webhooks/${id}`), writer, { method: 'DELETE' })).status).toBe(204);
    expectErrorBody(await call(url(`/webhooks/${id}`), reader), 404, 'not_found');
    expectErrorBody(await call(url(`/webhooks/${id}`), writer, { method: 'DELETE' }), 404, 'not_found');
    expectErrorBody(await call(url('/webhooks/wh_missing'), writer, { method: 'PUT', json: { name: 'x' } }), 404, 'not_found');
  });

  it('refuses bad settings with 422 naming each', async () => {
    expect(problemsOf(await create(valid({ url: 'https://169.254.169.254/latest' })))).toEqual(['/url']);
    expect(problemsOf(await create(valid({ url: 'https://[::ffff:10.0.0.1]/x' })))).toEqual(['/url']);
    expect(problemsOf(await create(valid({ url: 'https://2130706433/x' })))).toEqual(['/url']);
    expect(problemsOf(await create(valid({ url: 'http://hooks.example.com/x' })))).toEqual(['/url']);
    expect(problemsOf(await create(valid({ events: ['zone_entry', 'no_such_type'] })))).toEqual(['/events/1']);
    expect(problemsOf(await create(valid({ events: ['*', 'zone_entry'] })))).toEqual(['/events']);
    expect(problemsOf(await create(valid({ secret: 'tooshort' })))).toEqual(['/secret']);
    expect(problemsOf(await create(valid({ headers: { 'X-Service-Signature': 'forged' } })))).toEqual(['/headers/X-Service-Signature']);
    expect(problemsOf(await create(valid({ headers: { Connection: 'close' } })))).toEqual(['/headers/Connection']);
    expect(problemsOf(await create(valid({ min_severity: 'extreme', categories: ['sea'] })))).toEqual(expect.arrayContaining(['/min_severity', '/categories/0']));
    expect(problemsOf(await create({ name: 'x' }))).toEqual(expect.arrayContaining(['/url', '/events', '/secret']));
  });

  it('refuses a loopback URL unless the development setting allows it', async () => {
    expect(problemsOf(await create(valid({ url: 'http://127.0.0.1:9/x' })))).toEqual(['/url']);
    expect(problemsOf(await create(valid({ url: 'https://localhost/x' })))).toEqual(['/url']);
  });

  it('checks scopes', async () => {
    expectErrorBody(await create(valid(), reader), 403, 'forbidden');
    const other = (await svc.key(['events:read'])).key;
    expectErrorBody(await call(url('/webhooks'), other), 403, 'forbidden');
  });
});
