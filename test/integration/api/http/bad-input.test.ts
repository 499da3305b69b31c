// Issue 8, defect 5: bad input answers 4xx with the spec's error body, never 5xx, on every operation of
// the served OpenAPI document. The cases are generated from /v1/openapi.json, so a route is covered as
// soon as it is registered; a route that takes a body needs a valid one in VALID_BODIES, whose string
// fields the cases then spoil one at a time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authFeature, eventsFeature, incidentsFeature, ingestFeature, maritimeFeature, webhooksFeature, gateFeature, vesselsFeature, systemFeature, positionStreamFeature, dronesFeature } from '../../../../app/features.ts';
import { insertOperator } from '../../../../api/auth/oauth-store.ts';
import { hashPassword } from '../../../../api/auth/secrets.ts';
import { readEvent } from '../../../../events/queries.ts';
import { attachEvent } from '../../../../incidents/store.ts';
import { inTransaction } from '../../../../platform/postgres.ts';
import { DEFAULT_SYSTEM_CONFIG } from '../../../../schemas/system-config.ts';
import { topicSpecs } from '../../../../platform/topics.ts';
import { reading } from '../../../support/gate-readings.ts';
import { call, expectErrorBody, startTestService, type TestService } from '../../../support/service.ts';
import { unique, withAdmin } from '../../../support/stack.ts';
import { StreamClient } from '../../../support/stream-client.ts';

const POSITION = '!AIVDM,1,1,,B,13A><b0P010qaGPOo2Gcl?w208C?,0*04';
// In mid-Atlantic, away from every other test's zones and tracks (the database is shared within a run).
const ZONE = {
  name: 'Bad input berth', type: 'restricted', alert_level: 'high',
  geometry: { type: 'Polygon', coordinates: [[[-30.0, 40.0], [-29.99, 40.0], [-29.99, 40.006], [-30.0, 40.006], [-30.0, 40.0]]] },
  schedule: { days: ['mon', 'tue'], hours: '08:00-17:00', timezone: 'Europe/Copenhagen' },
};

/** Alert rules (issue 23) with a string in every place one can be: parties are checked against the system configuration. */
const ALERT_RULES = {
  on_entry: { alert_level: 'critical', actions: [{ action: 'notify_operator', assign_to: 'duty.officer' }, { action: 'escalate_to', parties: ['supervisor', 'port_authority'] }] },
  on_dwell: { threshold_minutes: 10, alert_level: 'high', actions: [{ action: 'dispatch_drone', mission: 'inspect' }] },
  on_exit: { alert_level: 'low', actions: [{ action: 'close_incident' }] },
};

/** A body each operation accepts, keyed by `METHOD /path` as in the OpenAPI document. */
const VALID_BODIES: Record<string, unknown> = {
  'POST /v1/auth/api-keys': { name: 'bad input key', scopes: ['events:read'] },
  'POST /v1/auth/oauth-clients': { name: 'bad input app', redirect_uris: ['https://app.example/cb'], scopes: ['events:read'] },
  'PATCH /v1/auth/operators/{operator_id}': { scopes: ['events:read'], disabled: false },
  'POST /v1/auth/operators/{operator_id}/password': { password: 'bad input password' },
  'POST /v1/ingest/ais': { sentences: [POSITION] },
  'POST /v1/ingest/gate': reading(),
  'POST /v1/maritime/zones': { ...ZONE, name: 'Bad input zone 2' },
  'PUT /v1/maritime/zones/{zone_id}': ZONE,
  'PATCH /v1/maritime/zones/{zone_id}': { name: 'Bad input berth' },
  'PUT /v1/maritime/zones/{zone_id}/rules': { time_rules: { schedules: [{ name: 'day', days: ['mon'], hours: '08:00-17:00', max_vessels: 3 }] }, alert_rules: ALERT_RULES },
  'PUT /v1/maritime/rules': { speed_rules: [{ zone: 'Bad input berth', max_speed_knots: 5, alert_level: 'low' }], alert_rules: [{ zone: 'Bad input berth', ...ALERT_RULES }] },
  'POST /v1/events': { type: 'fence_tamper', source_module: 'perimeter.bad-input', title: 'Fence sensor triggered', location: { zone: 'North fence' } },
  'PATCH /v1/events/{event_id}': { assigned_to: 'duty.officer', incident_id: 'inc_1' },
  'PATCH /v1/incidents/{incident_id}': { assigned_to: 'duty.officer', note: 'Checked the fence', status: 'resolved', resolution_reason: 'Fox in the fence' },
  'POST /v1/incidents/{incident_id}/merge': { into: 'inc_00000000000000000000000000000000' },
  'POST /v1/webhooks': { name: 'bad input hook', url: 'https://hooks.example.com/in', events: ['zone_entry'], secret: 'whsec_bad_input_0123456789abc' },
  'PUT /v1/webhooks/{webhook_id}': { name: 'bad input hook 2', url: 'https://hooks.example.com/in2' },
  'POST /v1/webhooks/{webhook_id}/replay': { start_date: '2026-01-01T00:00:00Z', end_date: '2026-01-02T00:00:00Z', status: 'failed', dry_run: true },
  'POST /v1/webhooks/{webhook_id}/test': { event_type: 'zone_entry' },
  'POST /v1/webhooks/{webhook_id}/deliveries/{delivery_id}/replay': {},
  'POST /v1/gate/appointments': { appointments: [{ appointment_id: 'apt-bad-input', plate: 'AB123CD', container_id: 'CSQU3054383', seal_number: 'SL-1' }] },
  'POST /v1/transactions/{transaction_id}/override': { decision: 'approved', reason: 'Checked at the lane by hand', operator_id: 'op-1', notes: 'n' },
  'POST /v1/gates/{gate_id}/release': { reason: 'Threat cleared by the duty officer' },
  // With a gate, so the gate's strings are spoiled too; every case is refused, so the shared configuration is untouched.
  'PUT /v1/system/config': { ...DEFAULT_SYSTEM_CONFIG, gates: [{ id: 'G-bad-input', name: 'Bad input gate' }] },
  'POST /v1/drones/missions': { kind: 'inspect', target: { type: 'Point', coordinates: [-30.0, 40.0] }, subject: 'bad-input', incident_id: 'inc_bad_input' },
  'POST /v1/drones/missions/{mission_id}/abort': { reason: 'manual', note: 'bad input' },
  'POST /v1/ingest/drones': { drone_id: 'bad-input-drone', dock_id: 'bad-input-dock', at: '2026-01-01T00:00:00Z', position: { lon: -30.0, lat: 40.0 }, altitude_m: 0, battery_percent: 50, mode: 'docked', link: 'up' },
};

const DEPTH = 100_000;
const DEEP_ARRAY = '['.repeat(DEPTH) + ']'.repeat(DEPTH);
const DEEP_OBJECT = '{"a":'.repeat(DEPTH) + 'null' + '}'.repeat(DEPTH);
const BODY_METHODS = new Set(['post', 'put', 'patch']);

interface Parameter {
  name: string;
  in: 'path' | 'query';
}
interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
}
interface Case {
  name: string;
  method: string;
  path: string;
  body?: string;
  contentType?: string;
}

describe('bad input on every operation of the OpenAPI document', () => {
  const prefix = `${unique('badin')}.`;
  let svc: TestService;
  let admin: string;
  const pathValues: Record<string, string> = {};

  beforeAll(async () => {
    svc = await startTestService({ PSS_TOPIC_PREFIX: prefix, PSS_RATE_LIMIT_BURST: '100000' }, [authFeature, ingestFeature, maritimeFeature, eventsFeature, incidentsFeature, webhooksFeature(), gateFeature, vesselsFeature, systemFeature, dronesFeature]);
    admin = (await svc.key(['admin'])).key;
    // A mission (no drone reports here: it waits in requested), for the routes that name one.
    const mission = await call(`${svc.url}/v1/drones/missions`, admin, { method: 'POST', json: VALID_BODIES['POST /v1/drones/missions'] });
    expect(mission.status, mission.text).toBe(201);
    pathValues.mission_id = mission.json.data.id;
    const zone = await fetch(`${svc.url}/v1/maritime/zones`, { method: 'POST', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, body: JSON.stringify(ZONE) });
    expect(zone.status).toBe(201);
    pathValues.zone_id = ((await zone.json()) as { data: { id: string } }).data.id;
    pathValues.key_id = (await svc.key(['events:read'])).id;
    pathValues.client_id = 'cli_0123456789abcdef';
    // An operator for the admin routes that name one (issue 34 item 6); every case is refused, so it is never changed.
    pathValues.operator_id = `usr_${prefix.replace(/[^0-9a-z]/g, '').slice(-16).padStart(16, '0')}`;
    await insertOperator(svc.context.pool, { id: pathValues.operator_id, username: `bad.input.${pathValues.operator_id}`, passwordHash: await hashPassword('bad input password'), scopes: ['events:read'] });
    const event = await call(`${svc.url}/v1/events`, admin, { method: 'POST', json: VALID_BODIES['POST /v1/events'] });
    expect(event.status).toBe(201);
    pathValues.event_id = event.json.data.id;
    // Two incidents (the event's, and another's that a merge could go into).
    const incidentOf = async (id: string) => inTransaction(svc.context.pool, async (client) =>
      (await attachEvent(client, (await readEvent(client, id))!, { groupWindowMinutes: 60, reopenWindowMinutes: 30 }, new Date()))!.incident.id);
    pathValues.incident_id = await incidentOf(event.json.data.id);
    const other = await call(`${svc.url}/v1/events`, admin, { method: 'POST', json: { ...(VALID_BODIES['POST /v1/events'] as object), location: { zone: 'South fence' } } });
    VALID_BODIES['POST /v1/incidents/{incident_id}/merge'] = { into: await incidentOf(other.json.data.id) };
    const hook = await call(`${svc.url}/v1/webhooks`, admin, { method: 'POST', json: VALID_BODIES['POST /v1/webhooks'] });
    expect(hook.status).toBe(201);
    pathValues.webhook_id = hook.json.data.id;
    pathValues.delivery_id = 'dlv_none';
  });
  afterAll(async () => {
    if (pathValues.zone_id) await call(`${svc.url}/v1/maritime/zones/${pathValues.zone_id}`, admin, { method: 'DELETE' });
    await svc?.context.pool.query(`DELETE FROM webhooks WHERE url LIKE 'https://hooks.example.com/%'`);
    await svc?.context.pool.query(`DELETE FROM drone_missions WHERE subject = 'bad-input' OR incident_id = 'inc_bad_input'`);
    const incidents = (await svc?.context.pool.query<{ incident_id: string }>(`SELECT DISTINCT i.incident_id FROM incident_events AS i JOIN security_events AS e ON e.id = i.event_id WHERE source_module = 'perimeter.bad-input'`))?.rows.map((r) => r.incident_id) ?? [];
    await svc?.context.pool.query(`DELETE FROM security_events WHERE source_module = 'perimeter.bad-input' OR (source_module = 'incidents' AND body->>'source_device' = ANY($1::text[]))`, [incidents]);
    await svc?.context.pool.query('DELETE FROM incident_changes WHERE incident_id = ANY($1::text[])', [incidents]);
    await svc?.context.pool.query('DELETE FROM incidents WHERE id = ANY($1::text[])', [incidents]);
    await svc?.stop();
    await withAdmin((a) => a.deleteTopics(topicSpecs(prefix).map((t) => t.name)));
  });

  async function operations(): Promise<Operation[]> {
    const doc = (await (await fetch(`${svc.url}/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, { parameters?: Parameter[] }>> };
    const out: Operation[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (['get', 'post', 'put', 'patch', 'delete'].includes(method)) out.push({ method, path, parameters: op.parameters ?? [] });
      }
    }
    return out;
  }

  function casesOf(op: Operation): Case[] {
    const key = `${op.method.toUpperCase()} ${op.path}`;
    const withPath = (value: (name: string) => string) => op.path.replace(/\{(\w+)\}/g, (_m, name: string) => value(name));
    const path = withPath((name) => pathValues[name] ?? 'x');
    const query = op.parameters.filter((p) => p.in === 'query').map((p) => p.name);
    const cases: Case[] = [];
    if (op.path.includes('{')) {
      for (const bad of ['%00', '%01', 'a%00b', '%ED%A0%80']) cases.push({ name: `path parameter ${bad}`, method: op.method, path: withPath(() => bad) });
    }
    for (const name of query.filter((n) => n === 'page' || n === 'per_page')) {
      for (const bad of ['99999999999999999999', '1e300', '-1e300', '9007199254740993']) cases.push({ name: `${name}=${bad}`, method: op.method, path: `${path}?${name}=${bad}` });
    }
    for (const name of query) cases.push({ name: `query ${name}=%00`, method: op.method, path: `${path}?${name}=%00` });
    if (op.path.startsWith('/oauth/')) cases.push(...oauthCases(op, path));
    else if (BODY_METHODS.has(op.method)) cases.push(...bodyCases(op.method, path, VALID_BODIES[key]));
    return cases;
  }

  function bodyCases(method: string, path: string, valid: unknown): Case[] {
    const json = (name: string, body: string): Case => ({ name, method, path, body, contentType: 'application/json' });
    const cases = [json('body null', 'null'), json('body nested 100,000 deep (array)', DEEP_ARRAY), json('body nested 100,000 deep (object)', DEEP_OBJECT)];
    for (const field of Object.keys(valid as object)) {
      cases.push(json(`${field} nested 100,000 deep`, JSON.stringify({ ...(valid as object), [field]: '@DEEP@' }).replace('"@DEEP@"', DEEP_ARRAY)));
    }
    for (const leaf of stringLeaves(valid)) {
      cases.push(json(`NUL in ${leaf.join('/')}`, JSON.stringify(spoil(valid, leaf, (s) => `${s}\u0000x`))));
      cases.push(json(`lone surrogate in ${leaf.join('/')}`, JSON.stringify(spoil(valid, leaf, (s) => `${s}\ud800`))));
    }
    return cases;
  }

  function oauthCases(op: Operation, path: string): Case[] {
    if (op.method !== 'post') return [{ name: 'every query parameter NUL', method: op.method, path: `${path}?${['response_type', 'client_id', 'redirect_uri', 'scope', 'state'].map((n) => `${n}=%00`).join('&')}` }];
    const form = (body: string): Case => ({ name: `form ${body}`, method: op.method, path, body, contentType: 'application/x-www-form-urlencoded' });
    return [
      form('grant_type=authorization_code&code=%00&redirect_uri=%00&client_id=%00&client_secret=%00'),
      form('grant_type=refresh_token&refresh_token=%00&client_id=%00'),
      form('grant_type=%00'),
    ];
  }

  it('answers every case with a 4xx and the spec\'s error body (RFC 6749 or HTML for the OAuth endpoints)', async () => {
    const ops = await operations();
    expect(ops.length).toBeGreaterThanOrEqual(17);
    // Routes without a body are covered by being served: the query, path and credential cases (issue 25: the health).
    expect(ops.map((o) => `${o.method} ${o.path}`)).toContain('get /v1/system/health');
    // Each query parameter gets its cases: the events list's `type` filter (issue 33) among them.
    expect(ops.find((o) => o.method === 'get' && o.path === '/v1/events')?.parameters.filter((p) => p.in === 'query').map((p) => p.name)).toEqual(expect.arrayContaining(['category', 'type', 'severity']));
    const missing = ops.filter((o) => BODY_METHODS.has(o.method) && !o.path.startsWith('/oauth/') && VALID_BODIES[`${o.method.toUpperCase()} ${o.path}`] === undefined);
    expect(missing, 'every operation with a body needs a valid body in VALID_BODIES').toEqual([]);
    const failures: string[] = [];
    let sent = 0;
    // DELETEs last: their cases must fail validation, but should one pass, it must not remove what the others use.
    for (const op of [...ops].sort((a, b) => Number(a.method === 'delete') - Number(b.method === 'delete'))) {
      for (const c of casesOf(op)) {
        sent += 1;
        const problem = await check(c, op.path.startsWith('/oauth/'));
        if (problem) failures.push(`${c.method.toUpperCase()} ${op.path} ${c.name}: ${problem}`);
      }
    }
    expect(sent).toBeGreaterThan(100);
    expect(failures).toEqual([]);
  });

  it('says which rule refused the input, and where', async () => {
    const send = (path: string, body?: string, method = body === undefined ? 'GET' : 'POST') =>
      call(`${svc.url}${path}`, admin, { method, body, headers: body === undefined ? {} : { 'content-type': 'application/json' } });
    const details = async (res: ReturnType<typeof send>) => {
      const answer = await res;
      expectErrorBody(answer, 422, 'validation_error');
      return answer.json.error.details as unknown[];
    };
    expect(await details(send('/v1/maritime/zones?page=1e300'))).toEqual([{ location: 'query', path: '/page', message: 'must be <= 1000000' }]);
    expect(await details(send('/v1/events?type=zone_entry,nope'))).toEqual([{ location: 'query', path: '/type', message: expect.stringContaining('unknown type "nope"; valid values: ') }]);
    expect(await details(send(`/v1/events?type=${'zone_entry,'.repeat(200)}`))).toEqual(expect.arrayContaining([{ location: 'query', path: '/type', message: 'must NOT have more than 2000 characters' }]));
    expect(await details(send('/v1/maritime/zones/a%00b'))).toEqual([{ location: 'params', path: '/zone_id', message: expect.stringContaining('control') }]);
    expect(await details(send('/v1/auth/api-keys', JSON.stringify({ name: 'a\u0000b', scopes: ['events:read'] })))).toEqual([{ location: 'body', path: '/name', message: expect.stringContaining('NUL') }]);
    expect(await details(send('/v1/maritime/zones', JSON.stringify({ ...ZONE, name: 'x\ud800' })))).toEqual([{ location: 'body', path: '/name', message: expect.stringContaining('surrogate') }]);
    expect(await details(send('/v1/ingest/gate', JSON.stringify([reading(), { ...reading(), 'k\u0000': 1 }])))).toEqual([{ location: 'body', path: '/1/k\u0000', message: expect.stringContaining('field name') }]);
    expect(await details(send('/v1/auth/api-keys', 'null'))).toEqual([{ location: 'body', path: '', message: 'must be object' }]);
    expectErrorBody(await send('/v1/ingest/ais', 'null'), 422, 'validation_error');
    const deep = await send('/v1/ingest/ais', `{"reports":[${DEEP_ARRAY}]}`);
    expectErrorBody(deep, 400, 'bad_request');
    expect(deep.json.error.message).toContain('deeper than 32 levels');
    // A body as deep as the limit is fine: the check counts, it does not guess.
    const atLimit = await send('/v1/auth/api-keys', `{"name":"deep","scopes":["events:read"],"x":${'['.repeat(31)}${']'.repeat(31)}}`);
    expect(atLimit.json.error.details).toEqual([{ location: 'body', path: '/x', message: 'is not an allowed field' }]);
  });

  async function check(c: Case, oauth: boolean): Promise<string | undefined> {
    const headers: Record<string, string> = { authorization: `Bearer ${admin}` };
    if (c.contentType) headers['content-type'] = c.contentType;
    const res = await fetch(`${svc.url}${c.path}`, { method: c.method.toUpperCase(), headers, body: c.body });
    const text = await res.text();
    if (res.status < 400 || res.status >= 500) return `HTTP ${res.status} ${text.slice(0, 200)}`;
    if (oauth) return undefined;
    let error: { code?: unknown; message?: unknown; request_id?: unknown } | undefined;
    try {
      error = (JSON.parse(text) as { error?: typeof error }).error;
    } catch {
      return `not JSON: ${text.slice(0, 200)}`;
    }
    const ok = typeof error?.code === 'string' && typeof error.message === 'string' && error.message !== '' && error.request_id === res.headers.get('x-request-id');
    return ok ? undefined : `not the spec's error body: ${text.slice(0, 200)}`;
  }
});

/** Paths (as key lists) of every string in a JSON value. */
function stringLeaves(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (typeof value === 'string') return [at];
  if (Array.isArray(value)) return value.flatMap((v, i) => stringLeaves(v, [...at, i]));
  if (typeof value === 'object' && value !== null) return Object.entries(value).flatMap(([k, v]) => stringLeaves(v, [...at, k]));
  return [];
}

function spoil(value: unknown, at: (string | number)[], change: (s: string) => string): unknown {
  if (at.length === 0) return change(value as string);
  const [head, ...rest] = at as [string | number, ...(string | number)[]];
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<string | number, unknown>;
  copy[head] = spoil(copy[head], rest, change);
  return copy;
}

// Issue 26: the position stream (a WebSocket route, not in the OpenAPI document) answers bad input with the
// stream's error messages on an open connection, never a close it did not announce, never a stack trace.
describe('bad input on the position stream', () => {
  const prefix = `${unique('badpos')}.`;
  let svc: TestService;

  beforeAll(async () => {
    svc = await startTestService({ PSS_TOPIC_PREFIX: prefix }, [authFeature, positionStreamFeature()]);
  });
  afterAll(async () => {
    await svc?.stop();
    await withAdmin((a) => a.deleteTopics(topicSpecs(prefix).map((t) => t.name)));
  });

  it('answers every bad message with an error and keeps serving', async () => {
    const client = await StreamClient.authenticated(svc.url, (await svc.key(['maritime:read'])).key, {}, '/v1/positions/stream');
    const bad: unknown[] = [
      'null', '[]', '"x"', '{"type":"subscribe","filters":[]}', DEEP_OBJECT.slice(0, 60_000), '{"type":"subscribe","filters":{"bbox":[1,2,3,"\u0000"]}}',
      '{"type":"subscribe","filters":{"bbox":[0,0,1,1e400]}}', { type: 'subscribe', filters: { bbox: [NaN, 0, 1, 1] } },
      { type: 'subscribe', filters: { mmsi: [1.5] } }, { type: 'subscribe', filters: { mmsi: 'x' } }, { type: 'subscribe', filters: { ['k\u0000']: 1 } },
      { type: 'subscribe', resume: '\ud800' }, { type: 'subscribe', resume: 'A'.repeat(5000) }, { type: 'subscribe', resume: 7 },
      { type: 'auth', token: 'x' }, { type: 'unsubscribe' },
    ];
    for (const message of bad) {
      client.send(message);
      const answer = await client.next();
      expect(answer.type, JSON.stringify(message).slice(0, 80)).toBe('error');
      expect(answer.code).toMatch(/^(invalid_message|invalid_filter|invalid_resume|already_authenticated|not_subscribed)$/);
      expect(answer.message).not.toMatch(/\n\s+at /);
    }
    client.ws.send(Buffer.from([1, 2, 3]), { binary: true });
    expect(await client.next()).toMatchObject({ type: 'error', code: 'invalid_message' });
    await client.subscribe({ bbox: [-1, -1, 1, 1] });
    client.close();
  });
});
