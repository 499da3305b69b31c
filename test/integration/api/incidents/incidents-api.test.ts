// Issue 23, item 5: the incidents API on the real service: the list with each filter and its pages (errors as
// GET /v1/events), one incident with its events and timeline, the operators' changes (audited, 409 where the
// state forbids them) and merging; scopes events:read / events:write. The detail carries the incident's
// response actions, notifications and escalations from the action log, in the shape its schema documents.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authFeature, eventsFeature, incidentsFeature } from '../../../../app/features.ts';
import { eventId } from '../../../../events/event-id.ts';
import { storeEvents } from '../../../../events/store.ts';
import { attachEvent } from '../../../../incidents/store.ts';
import { inTransaction } from '../../../../platform/postgres.ts';
import { recordActions } from '../../../../response/action-log.ts';
import { actionId, type PlannedAction } from '../../../../response/planner.ts';
import type { EventSeverity, SecurityEvent } from '../../../../schemas/event.ts';
import { incidentDetailSchema, type Incident } from '../../../../schemas/incident.ts';
import { call, expectErrorBody, startTestService, type TestService } from '../../../support/service.ts';

const DAY = 86_400_000;
// ajv-formats is CommonJS with a default export; under NodeNext the callable sits on `.default`.
type FormatsPlugin = (ajv: Ajv2020) => Ajv2020;
const formats = addFormatsPlugin as unknown as FormatsPlugin & { default?: FormatsPlugin };

describe('the incidents API', () => {
  const tag = Math.random().toString(36).slice(2, 8);
  const module = `api.inc${tag}`;
  // Incidents opened in a day no other test uses (the database is shared by every file of a run).
  const base = Date.UTC(2002, 0, 1) + Math.floor(Math.random() * 2000) * DAY;
  const window = { start_date: new Date(base).toISOString(), end_date: new Date(base + DAY).toISOString() };
  const mmsiBase = 300_000_000 + Math.floor(Math.random() * 700_000) * 1000;
  let svc: TestService;
  let reader: string;
  let writer: string;
  let n = 0;
  const incidents: Incident[] = [];

  const event = (minutes: number, severity: EventSeverity, metadata: Record<string, unknown>, zone?: string): SecurityEvent => ({
    id: eventId(`${module}:${++n}`), type: 'zone_entry', timestamp: new Date(base + minutes * 60_000).toISOString(), category: 'maritime', severity,
    source_module: module, source_device: 'ais', title: `event ${n}`, description: '', location: zone === undefined ? {} : { zone }, metadata,
    requires_action: true, assigned_to: '', incident_id: null,
  });
  /** Opens (or joins) an incident at `minutes` after base. */
  const attach = async (e: SecurityEvent, minutes: number) =>
    inTransaction(svc.context.pool, async (client) => {
      await storeEvents(client, [e]);
      return (await attachEvent(client, e, { groupWindowMinutes: 60, reopenWindowMinutes: 30, ackTimeoutMinutes: { high: 10, critical: 5 } }, new Date(base + minutes * 60_000)))!;
    });
  const get = (path: string, key = reader) => call(`${svc.url}/v1${path}`, key);
  const list = async (query: Record<string, string>) => get(`/incidents?${new URLSearchParams({ ...window, ...query })}`);
  const ids = (res: { json: Record<string, any> }) => (res.json.data as Incident[]).map((i) => i.id); // eslint-disable-line @typescript-eslint/no-explicit-any
  const patch = (id: string, json: unknown, key = writer) => call(`${svc.url}/v1/incidents/${id}`, key, { method: 'PATCH', json });

  beforeAll(async () => {
    svc = await startTestService({ PSS_RATE_LIMIT_BURST: '100000' }, [authFeature, eventsFeature, incidentsFeature]);
    reader = (await svc.key(['events:read'])).key;
    writer = (await svc.key(['events:write'])).key;
    // Five incidents, one a minute: vessels in two zones, a gate container, a plate; severities low to critical.
    const specs: [EventSeverity, Record<string, unknown>, string?][] = [
      ['low', { mmsi: mmsiBase + 1, zone_id: `zone_a_${tag}` }, `Holmen ${tag}`],
      ['medium', { mmsi: mmsiBase + 2 }, `Anchorage ${tag}`],
      ['high', { gate: `G${tag}`, container_id: `MSCU${tag}1` }],
      ['critical', { mmsi: mmsiBase + 3 }, `Holmen ${tag}`],
      ['high', { gate: `G${tag}`, vehicle_plate: `ab-${tag}` }],
    ];
    for (const [i, [severity, metadata, zone]] of specs.entries()) incidents.push((await attach(event(i, severity, metadata, zone), i)).incident);
    // A second event joins the first incident.
    await attach(event(10, 'low', { mmsi: mmsiBase + 1 }), 10);
  });
  afterAll(async () => {
    const pool = svc?.context.pool;
    const all = (await pool?.query<{ id: string }>('SELECT id FROM incidents WHERE opened_at >= $1 AND opened_at <= $2', [window.start_date, window.end_date]))?.rows.map((r) => r.id) ?? [];
    await pool?.query("DELETE FROM security_events WHERE source_module = $1 OR (source_module = 'incidents' AND body->>'source_device' = ANY($2::text[]))", [module, all]);
    await pool?.query('DELETE FROM incident_changes WHERE incident_id = ANY($1::text[])', [all]);
    await pool?.query('DELETE FROM incident_events WHERE incident_id = ANY($1::text[])', [all]);
    await pool?.query('DELETE FROM incidents WHERE id = ANY($1::text[])', [all]);
    await svc?.stop();
  });

  it('lists with each filter, newest first, with the pagination of every list', async () => {
    const [low, medium, gate, critical, plate] = incidents.map((i) => i.id);
    const all = await list({});
    expect(all.status).toBe(200);
    expect(ids(all)).toEqual([plate, critical, gate, medium, low]);
    expect(all.json.pagination).toEqual({ page: 1, per_page: 50, total_items: 5, total_pages: 1, has_next: false, has_previous: false });
    expect(all.json.meta).toEqual({ request_id: all.headers.get('x-request-id'), timestamp: expect.any(String) });
    expect(ids(await list({ severity: 'high,critical' }))).toEqual([plate, critical, gate]);
    expect(ids(await list({ zone: `holmen ${tag}` }))).toEqual([critical, low]);
    expect(ids(await list({ zone: `zone_a_${tag}` }))).toEqual([low]);
    expect(ids(await list({ mmsi: String(mmsiBase + 2) }))).toEqual([medium]);
    expect(ids(await list({ gate: `G${tag}` }))).toEqual([plate, gate]);
    expect(ids(await list({ container: `mscu-${tag}1` }))).toEqual([gate]);
    expect(ids(await list({ plate: `AB${tag}` }))).toEqual([plate]);
    expect(ids(await list({ start_date: new Date(base + 2 * 60_000).toISOString(), end_date: new Date(base + 3 * 60_000).toISOString() }))).toEqual([critical, gate]);
    expect(ids(await list({ sort: 'severity', order: 'asc' }))).toEqual([low, medium, gate, plate, critical]);
    expect(ids(await list({ status: 'open' }))).toHaveLength(5);
    const page2 = await list({ per_page: '2', page: '2' });
    expect(ids(page2)).toEqual([gate, medium]);
    expect(page2.json.pagination).toEqual({ page: 2, per_page: 2, total_items: 5, total_pages: 3, has_next: true, has_previous: true });
    expect(ids(await list({ page: '9' }))).toEqual([]);
  });

  it('refuses bad filters with every problem in one 422, as GET /v1/events does', async () => {
    const res = await list({ status: 'closed', start_date: 'soon', per_page: '500' });
    expectErrorBody(res, 422, 'validation_error');
    expect(res.json.error.details).toEqual(expect.arrayContaining([
      { location: 'query', path: '/per_page', message: 'must be <= 200' },
      { location: 'query', path: '/status', message: expect.stringContaining('unknown status "closed"') },
      { location: 'query', path: '/start_date', message: expect.stringContaining('ISO 8601') },
    ]));
  });

  it('reads one incident with its events, timeline and (none planned) empty response records; 404 for an unknown one', async () => {
    const res = await get(`/incidents/${incidents[0]!.id}`);
    expect(res.status).toBe(200);
    const detail = res.json.data;
    expect(detail).toMatchObject({ id: incidents[0]!.id, event_count: 2, severity: 'low', events_total: 2, actions: [], notifications: [], escalations: [] });
    expect(detail.events.map((e: SecurityEvent) => e.incident_id)).toEqual([incidents[0]!.id, incidents[0]!.id]);
    expect(detail.timeline.map((c: { action: string; by_kind: string }) => [c.action, c.by_kind])).toEqual([['opened', 'system'], ['event_attached', 'system']]);
    expectErrorBody(await get('/incidents/inc_00000000000000000000000000000000'), 404, 'not_found');
  });

  it('shows the response loop\'s actions of an incident, its notifications and its escalations, as the detail schema says', async () => {
    const incident = incidents[2]!;
    const cause = incident.opening_event_id;
    const action = (kind: PlannedAction['kind'], target: string, source: PlannedAction['source'], extra: Partial<PlannedAction> = {}): PlannedAction => ({
      id: actionId(cause, kind, target), kind, target, event_id: cause, incident_id: incident.id, level: 'high', source, reason: source === 'rule' ? `zone:Quay ${tag}:on_entry` : 'level:high', params: {}, muted: false, ...extra,
    });
    const planned = [
      action('notify', 'dashboard', 'rule', { params: { assign_to: 'op-3' } }),
      action('notify', 'push', 'level'),
      action('notify', 'audio_alarm', 'level', { muted: true }),
      action('escalate', 'supervisor', 'level'),
      action('escalate', 'port_authority', 'ack_timeout', { params: { escalation_event_id: `evt_esc_${tag}` }, reason: 'ack_timeout:step 1' }),
      action('lock_gate', `G${tag}`, 'rule'),
    ];
    // Another incident's action is not this one's.
    const elsewhere = { ...action('notify', 'push', 'level'), id: actionId(incidents[3]!.opening_event_id, 'notify', 'push'), event_id: incidents[3]!.opening_event_id, incident_id: incidents[3]!.id };
    await inTransaction(svc.context.pool, (client) => recordActions(client, [...planned, elsewhere]));
    // As the executors leave them (response/executors/notify.ts, escalate.ts): done with their result.
    const done = (a: PlannedAction, result: object) => svc.context.pool.query(`UPDATE response_actions SET status = 'done', attempts = 1, result = $2, done_at = now() WHERE id = $1`, [a.id, JSON.stringify(result)]);
    await done(planned[1]!, { channel: 'push', webhook_ids: [`wh_push_${tag}`], deliveries: 1 });
    await done(planned[3]!, { party: 'supervisor', event_id: `evt_escalated_${tag}`, webhook_ids: [`wh_a_${tag}`, `wh_b_${tag}`], deliveries: 2, operator_groups: ['supervisors'] });

    const res = await get(`/incidents/${incident.id}`);
    expect(res.status).toBe(200);
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    (formats.default ?? formats)(ajv);
    const valid = ajv.compile(incidentDetailSchema);
    expect(valid(res.json.data), JSON.stringify(valid.errors)).toBe(true);
    const detail = res.json.data;
    expect(detail.actions.map((a: { id: string }) => a.id).sort()).toEqual(planned.map((a) => a.id).sort());
    expect(detail.actions.find((a: { kind: string }) => a.kind === 'lock_gate')).toMatchObject({ target: `G${tag}`, status: 'pending', source: 'rule', incident_id: incident.id, result: null, done_at: null });
    const byChannel = Object.fromEntries(detail.notifications.map((n: { channel: string }) => [n.channel, n]));
    expect(Object.keys(byChannel).sort()).toEqual(['audio_alarm', 'dashboard', 'push']);
    expect(byChannel.dashboard).toMatchObject({ action_id: planned[0]!.id, event_id: cause, status: 'pending', assigned_to: 'op-3', webhook_ids: [] });
    expect(byChannel.push).toMatchObject({ status: 'done', assigned_to: null, webhook_ids: [`wh_push_${tag}`] });
    expect(byChannel.audio_alarm).toMatchObject({ status: 'muted', assigned_to: null });
    expect(detail.escalations.map((e: { party: string }) => e.party).sort()).toEqual(['port_authority', 'supervisor']);
    expect(detail.escalations.find((e: { party: string }) => e.party === 'supervisor')).toMatchObject({
      action_id: planned[3]!.id, event_id: cause, source: 'level', reason: 'level:high', status: 'done', escalation_event_id: `evt_escalated_${tag}`, webhook_ids: [`wh_a_${tag}`, `wh_b_${tag}`], deliveries: 2,
    });
    expect(detail.escalations.find((e: { party: string }) => e.party === 'port_authority')).toMatchObject({ source: 'ack_timeout', status: 'pending', escalation_event_id: `evt_esc_${tag}`, webhook_ids: [], deliveries: null });
    const other = (await get(`/incidents/${incidents[3]!.id}`)).json.data;
    expect(other.actions.map((a: { id: string }) => a.id)).toEqual([elsewhere.id]);
    expect(other.escalations).toEqual([]);
  });

  it('acknowledges, assigns, notes and resolves, audited with the caller; 422, 409 and 403 where due', async () => {
    const id = incidents[1]!.id;
    const acked = await patch(id, { status: 'acknowledged', assigned_to: 'op-7', note: 'looking' });
    expect(acked.status).toBe(200);
    expect(acked.json.data).toMatchObject({ status: 'acknowledged', assigned_to: 'op-7', acknowledged_by: 'test-events:write', notes: [{ by: 'test-events:write', text: 'looking' }] });
    const noReason = await patch(id, { status: 'resolved' });
    expectErrorBody(noReason, 422, 'validation_error');
    expect(noReason.json.error.details).toEqual([{ location: 'body', path: '/resolution_reason', message: 'is required with status resolved' }]);
    expect((await patch(id, { resolution_reason: 'x', status: 'acknowledged', extra: 1 })).json.error.details).toEqual([
      { location: 'body', path: '/extra', message: 'is not an allowed field' },
      { location: 'body', path: '/resolution_reason', message: 'is only allowed with status resolved' },
    ]);
    const resolved = await patch(id, { status: 'resolved', resolution_reason: 'authorized pilot boat' });
    expect(resolved.json.data).toMatchObject({ status: 'resolved', resolved_by: 'test-events:write', resolution_reason: 'authorized pilot boat' });
    expectErrorBody(await patch(id, { status: 'acknowledged' }), 409, 'resource_conflict');
    expectErrorBody(await patch(id, { note: 'x' }, reader), 403, 'forbidden');
    expectErrorBody(await patch('inc_00000000000000000000000000000000', { note: 'x' }), 404, 'not_found');
    const timeline = (await get(`/incidents/${id}`)).json.data.timeline as { action: string; by: string; by_kind: string; before: object; after: object }[];
    expect(timeline.slice(1).map((c) => [c.action, c.by, c.by_kind])).toEqual([
      ['assigned', 'test-events:write', 'api_key'], ['acknowledged', 'test-events:write', 'api_key'], ['note_added', 'test-events:write', 'api_key'], ['resolved', 'test-events:write', 'api_key'],
    ]);
    expect(timeline[4]).toMatchObject({ before: { status: 'acknowledged', resolution_reason: null }, after: { status: 'resolved', resolution_reason: 'authorized pilot boat' } });
    const { rows } = await svc.context.pool.query("SELECT type FROM security_events WHERE source_module = 'incidents' AND body->>'source_device' = $1 ORDER BY type", [id]);
    expect(rows.map((r) => r.type)).toEqual(['incident_acknowledged', 'incident_created', 'incident_resolved']);
  });

  it('merges one incident into another; refuses itself, an unknown target and a merged source', async () => {
    const [, , gate, , plate] = incidents.map((i) => i.id) as string[];
    const merge = (id: string, into: string, key = writer) => call(`${svc.url}/v1/incidents/${id}/merge`, key, { method: 'POST', json: { into } });
    expectErrorBody(await merge(plate!, plate!), 422, 'validation_error');
    const unknown = await merge(plate!, 'inc_00000000000000000000000000000000');
    expectErrorBody(unknown, 422, 'validation_error');
    expect(unknown.json.error.details).toEqual([{ location: 'body', path: '/into', message: 'no incident has this id' }]);
    expectErrorBody(await merge(plate!, gate!, reader), 403, 'forbidden');
    const merged = await merge(plate!, gate!);
    expect(merged.status).toBe(200);
    expect(merged.json.data).toMatchObject({ id: gate, event_count: 2, plate: `AB${tag.toUpperCase()}` });
    expect((await get(`/incidents/${plate}`)).json.data).toMatchObject({ status: 'resolved', merged_into: gate, event_count: 0, events: [] });
    expect((await get(`/incidents/${gate}`)).json.data.events_total).toBe(2);
    expectErrorBody(await merge(plate!, gate!), 409, 'resource_conflict');
  });

  it('needs events:read to read', async () => {
    const other = (await svc.key(['maritime:read'])).key;
    expectErrorBody(await get('/incidents', other), 403, 'forbidden');
    expectErrorBody(await call(`${svc.url}/v1/incidents`, undefined), 401, 'unauthorized');
  });
});
