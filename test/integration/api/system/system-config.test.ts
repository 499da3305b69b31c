// GET/PUT /v1/system/config and its audit, on a database of its own: the configuration is one document
// for the whole site, and other tests read it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authFeature, maritimeFeature, systemFeature } from '../../../../app/features.ts';
import { DEFAULT_SYSTEM_CONFIG, type SystemConfig } from '../../../../schemas/system-config.ts';
import { scratchDatabase, type ScratchDatabase } from '../../../support/scratch-database.ts';
import { call, expectErrorBody, startTestService, type TestService } from '../../../support/service.ts';

const ZONE = {
  name: 'Config test basin', type: 'restricted', alert_level: 'high',
  geometry: { type: 'Polygon', coordinates: [[[-31.0, 41.0], [-30.99, 41.0], [-30.99, 41.006], [-31.0, 41.006], [-31.0, 41.0]]] },
};

const doc = (change: (c: SystemConfig) => void = () => undefined): SystemConfig => {
  const c = structuredClone(DEFAULT_SYSTEM_CONFIG) as SystemConfig;
  change(c);
  return c;
};

describe('system configuration API', () => {
  let db: ScratchDatabase;
  let svc: TestService;
  let reader: string;
  let writer: { id: string; key: string };
  let admin: string;
  let eventsReader: string;
  let zoneId: string;
  const url = (path: string) => `${svc.url}/v1${path}`;

  beforeAll(async () => {
    db = await scratchDatabase('syscfg_api');
    svc = await startTestService({ PSS_DATABASE_URL: db.url, PSS_RATE_LIMIT_BURST: '100000' }, [authFeature, maritimeFeature, systemFeature]);
    reader = (await svc.key(['system:read'])).key;
    writer = await svc.key(['system:write']);
    admin = (await svc.key(['admin'])).key;
    eventsReader = (await svc.key(['events:read'])).key;
    const zone = await call(url('/maritime/zones'), admin, { method: 'POST', json: ZONE });
    expect(zone.status).toBe(201);
    zoneId = zone.json.data.id;
    await svc.context.pool.query(
      `INSERT INTO webhooks (id, name, url, events, secret_sealed, secret_hint) VALUES ('wh_push', 'Console push', 'https://hooks.example.com/push', '{*}', 'sealed', 'abcd'), ('wh_pa', 'Port authority', 'https://hooks.example.com/pa', '{*}', 'sealed', 'abcd')`,
    );
  });
  afterAll(async () => {
    await svc?.stop();
    await db?.drop();
  });

  it('serves the shipped defaults before any change, and no changes', async () => {
    const got = await call(url('/system/config'), reader);
    expect(got.status).toBe(200);
    expect(got.json.data).toEqual(DEFAULT_SYSTEM_CONFIG);
    const changes = await call(url('/system/config/changes'), reader);
    expect(changes.status).toBe(200);
    expect(changes.json.data).toEqual([]);
    expect(changes.json.pagination).toMatchObject({ page: 1, per_page: 50, total_items: 0 });
  });

  it('asks for system:read to read and system:write to change', async () => {
    expectErrorBody(await call(url('/system/config'), eventsReader), 403, 'forbidden');
    expectErrorBody(await call(url('/system/config/changes'), eventsReader), 403, 'forbidden');
    expectErrorBody(await call(url('/system/config'), writer.key), 403, 'forbidden');
    expectErrorBody(await call(url('/system/config'), reader, { method: 'PUT', json: doc() }), 403, 'forbidden');
    expectErrorBody(await call(url('/system/config'), undefined), 401, 'unauthorized');
    expect((await call(url('/system/config/changes'), reader)).json.pagination.total_items).toBe(0);
  });

  it('replaces the document, serves it, and keeps who changed what', async () => {
    const next = doc((c) => {
      c.gates.push({ id: 'G1', name: 'Gate 1' }, { id: 'G2', name: 'Gate 2' });
      c.channels.push.webhook_ids.push('wh_push');
      (c.parties[1] as { webhook_ids: string[] }).webhook_ids.push('wh_pa');
      c.alert_levels.high.ack_timeout_minutes = 15;
    });
    const put = await call(url('/system/config'), writer.key, { method: 'PUT', json: next });
    expect(put.status).toBe(200);
    expect(put.json.data).toEqual(next);
    expect((await call(url('/system/config'), reader)).json.data).toEqual(next);
    const changes = await call(url('/system/config/changes'), reader);
    expect(changes.json.data).toEqual([
      {
        revision: 1,
        changed_at: expect.any(String),
        changed_by: { credential_id: writer.id, principal: 'test-system:write', auth_kind: 'api_key' },
        before: DEFAULT_SYSTEM_CONFIG,
        after: next,
      },
    ]);
    // The same document again changes nothing and is not recorded.
    expect((await call(url('/system/config'), writer.key, { method: 'PUT', json: next })).status).toBe(200);
    expect((await call(url('/system/config/changes'), reader)).json.pagination.total_items).toBe(1);
  });

  it('refuses a document with every problem listed in one 422, and keeps the one in force', async () => {
    const before = (await call(url('/system/config'), reader)).json.data;
    const bad = doc((c) => {
      c.parties.push({ id: 'supervisor', name: 'Second supervisor', webhook_ids: ['wh_nowhere'], operator_groups: [] });
      c.escalation_order.push('harbour_master');
      c.gates.push({ id: 'G7', name: 'Gate 7' }, { id: 'G7', name: 'Gate 7 again' });
      c.channels.push.webhook_ids.push('wh_push', 'wh_gone');
    });
    const res = await call(url('/system/config'), writer.key, { method: 'PUT', json: bad });
    expectErrorBody(res, 422, 'validation_error');
    expect(res.json.error.details).toEqual([
      { location: 'body', path: '/parties/3/id', message: expect.stringContaining('"supervisor" is already used by /parties/0') },
      { location: 'body', path: '/gates/1/id', message: expect.stringContaining('"G7" is already used by /gates/0') },
      { location: 'body', path: '/escalation_order/3', message: expect.stringContaining('"harbour_master"') },
      { location: 'body', path: '/channels/push/webhook_ids/1', message: 'webhook "wh_gone" does not exist' },
      { location: 'body', path: '/parties/3/webhook_ids/0', message: 'webhook "wh_nowhere" does not exist' },
    ]);
    expect((await call(url('/system/config'), reader)).json.data).toEqual(before);
  });

  it('refuses out-of-bounds values by the schema, each with its path', async () => {
    const res = await call(url('/system/config'), writer.key, {
      method: 'PUT',
      json: doc((c) => {
        c.alert_levels.critical.ack_timeout_minutes = 0;
        c.incidents.group_window_minutes = 100_000;
      }),
    });
    expectErrorBody(res, 422, 'validation_error');
    expect(res.json.error.details).toEqual([
      { location: 'body', path: '/alert_levels/critical/ack_timeout_minutes', message: 'must be >= 1' },
      { location: 'body', path: '/incidents/group_window_minutes', message: 'must be <= 1440' },
    ]);
  });

  it('refuses to remove a party or gate that a zone\'s alert rules or a dwell ladder still name', async () => {
    // Part A's stored shape: one zone's alert_rules in maritime_zone_rules.rules.
    const rules = {
      alert_rules: {
        on_entry: { alert_level: 'critical', actions: [{ action: 'notify_operator' }, { action: 'escalate_to', parties: ['supervisor', 'port_authority'] }, { action: 'lock_gates', gates: ['G1', 'G2'] }] },
        on_exit: { alert_level: 'low', actions: [{ action: 'close_incident' }] },
      },
    };
    await svc.context.pool.query('INSERT INTO maritime_zone_rules (zone_id, rules) VALUES ($1, $2)', [zoneId, rules]);
    const current = (await call(url('/system/config'), reader)).json.data as SystemConfig;
    const without = structuredClone(current);
    without.parties = without.parties.filter((p) => p.id !== 'port_authority' && p.id !== 'coast_guard');
    without.escalation_order = ['supervisor'];
    without.gates = without.gates.filter((g) => g.id !== 'G2');
    const res = await call(url('/system/config'), writer.key, { method: 'PUT', json: without });
    expectErrorBody(res, 422, 'validation_error');
    expect(res.json.error.details).toEqual([
      { location: 'body', path: '/parties', message: 'party "coast_guard" cannot be removed: the built-in dwell_time escalation still names it' },
      { location: 'body', path: '/parties', message: 'party "port_authority" cannot be removed: zone "Config test basin" alert_rules.on_entry; the built-in dwell_time escalation still name it' },
      { location: 'body', path: '/gates', message: 'gate "G2" cannot be removed: zone "Config test basin" alert_rules.on_entry still names it' },
    ]);

    // Once nothing names them, they go.
    await svc.context.pool.query('DELETE FROM maritime_zone_rules WHERE zone_id = $1', [zoneId]);
    await svc.context.pool.query(`INSERT INTO maritime_site_rules (key, value) VALUES ('dwell_time', $1)`, [{ enabled: true, escalation: [{ after_minutes: 15, action: 'notify_supervisor' }] }]);
    const put = await call(url('/system/config'), writer.key, { method: 'PUT', json: without });
    expect(put.status).toBe(200);
    expect((await call(url('/system/config'), reader)).json.data).toEqual(without);
  });

  it('pages the changes newest first and filters them by date, with the errors of GET /v1/events', async () => {
    const page = await call(url('/system/config/changes?per_page=1&page=2'), reader);
    expect(page.status).toBe(200);
    expect(page.json.data.map((c: { revision: number }) => c.revision)).toEqual([1]);
    expect(page.json.pagination).toEqual({ page: 2, per_page: 1, total_items: 2, total_pages: 2, has_next: false, has_previous: true });
    const first = await call(url('/system/config/changes?per_page=1'), reader);
    expect(first.json.data[0].revision).toBe(2);
    expect(first.json.data[0].before).toEqual(page.json.data[0].after);
    expect((await call(url('/system/config/changes?start_date=2999-01-01'), reader)).json.data).toEqual([]);
    expect((await call(url('/system/config/changes?end_date=2000-01-01'), reader)).json.data).toEqual([]);
    const bad = await call(url('/system/config/changes?start_date=yesterday&per_page=500'), reader);
    expectErrorBody(bad, 422, 'validation_error');
    expect(bad.json.error.details).toEqual([
      { location: 'query', path: '/per_page', message: 'must be <= 200' },
      { location: 'query', path: '/start_date', message: expect.stringContaining('ISO 8601') },
    ]);
    const reversed = await call(url('/system/config/changes?start_date=2026-02-01&end_date=2026-01-01'), reader);
    expectErrorBody(reversed, 422, 'validation_error');
    expect(reversed.json.error.details).toEqual([{ location: 'query', path: '/start_date', message: expect.stringContaining('must not be after end_date') }]);
  });

  it('answers a stored document with a warning for each party an escalation reaches and nobody hears (issue 33, item 9)', async () => {
    await svc.context.pool.query(`INSERT INTO webhooks (id, name, url, events, secret_sealed, secret_hint, active) VALUES ('wh_off', 'Disabled', 'https://hooks.example.com/off', '{*}', 'sealed', 'abcd', false)`);
    const next = doc((c) => {
      (c.parties[0] as { webhook_ids: string[] }).webhook_ids.push('wh_push');
      (c.parties[1] as { webhook_ids: string[] }).webhook_ids.push('wh_off');
      c.parties.push({ id: 'harbour_master', name: 'Harbour master', webhook_ids: [], operator_groups: [] });
      c.escalation_order = ['supervisor', 'port_authority'];
    });
    // coast_guard: outside the order, and the site's ladder (stored above) only notifies the supervisor: nothing reaches it.
    await svc.context.pool.query('INSERT INTO maritime_zone_rules (zone_id, rules) VALUES ($1, $2)', [zoneId, { alert_rules: { on_entry: { alert_level: 'high', actions: [{ action: 'escalate_to', parties: ['harbour_master'] }] } } }]);
    try {
      const put = await call(url('/system/config'), writer.key, { method: 'PUT', json: next });
      expect(put.status).toBe(200);
      expect(Object.keys(put.json).sort()).toEqual(['data', 'warnings']);
      expect(put.json.data).toEqual(next);
      expect(put.json.warnings).toEqual([
        { code: 'party_without_receiver', path: '/parties/1/webhook_ids', party: 'port_authority', message: 'party "port_authority" (Port authority) has no receiver: none of its webhook_ids (wh_off) is an active webhook, so its escalations are recorded and nobody is told (reached by escalation_order)' },
        { code: 'party_without_receiver', path: '/parties/3/webhook_ids', party: 'harbour_master', message: 'party "harbour_master" (Harbour master) has no receiver: no webhook_ids, so its escalations are recorded and nobody is told (reached by zone "Config test basin" alert_rules.on_entry)' },
      ]);
      expect((await call(url('/system/config'), reader)).json.data).toEqual(next);
      // The webhook turned on again: the same document, unchanged, warns of the harbour master alone.
      await svc.context.pool.query(`UPDATE webhooks SET active = true WHERE id = 'wh_off'`);
      const again = await call(url('/system/config'), writer.key, { method: 'PUT', json: next });
      expect(again.json.warnings.map((w: { party: string }) => w.party)).toEqual(['harbour_master']);
    } finally {
      await svc.context.pool.query('DELETE FROM maritime_zone_rules WHERE zone_id = $1', [zoneId]);
    }
  });
});
