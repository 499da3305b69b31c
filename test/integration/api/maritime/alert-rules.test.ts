// Issue 23, part A: alert rules through the zone rules API. Every problem (the schema's and the names the
// system configuration must hold) in one 422; parties and gates known only from the stored configuration;
// a configuration change that lands between the request's check and its write still refuses the write.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authFeature, maritimeFeature } from '../../../../app/features.ts';
import { loadAlertRules } from '../../../../processors/maritime/rules-config/rule-store.ts';
import { DEFAULT_SYSTEM_CONFIG, type SystemConfig } from '../../../../schemas/system-config.ts';
import { call, expectErrorBody, startTestService, type TestService } from '../../../support/service.ts';

const suffix = Math.random().toString(36).slice(2, 8);
// In mid-Atlantic, away from every other test's zones and tracks (the database is shared within a run).
const ZONE = { name: `Alert rules berth ${suffix}`, type: 'restricted', alert_level: 'medium', geometry: { type: 'Circle', center: [-33.0, 42.0], radius_meters: 500 } };
const SITE: SystemConfig = {
  ...DEFAULT_SYSTEM_CONFIG,
  parties: [...DEFAULT_SYSTEM_CONFIG.parties, { id: 'harbour_master', name: 'Harbour master', webhook_ids: [], operator_groups: [] }],
  gates: [{ id: 'G1', name: 'Gate 1' }, { id: 'G2', name: 'Gate 2' }],
};
const PARTIES = 'supervisor, port_authority, coast_guard, harbour_master';

describe('alert rules through the zone rules API', () => {
  let svc: TestService;
  let writer: string;
  let zoneId: string;
  let savedConfig: { document: SystemConfig; revision: number } | undefined;
  const url = (path: string) => `${svc.url}/v1${path}`;
  const details = (res: Awaited<ReturnType<typeof call>>) => {
    expectErrorBody(res, 422, 'validation_error');
    return (res.json.error.details as { path: string; message: string }[]).map((d) => `${d.path} ${d.message}`);
  };
  /** The stored configuration, written as PUT /v1/system/config would store it (part B owns that route). */
  const storeConfig = (config: SystemConfig) =>
    svc.context.pool.query(
      `INSERT INTO system_config (key, document, revision) VALUES ('system', $1, 1)
       ON CONFLICT (key) DO UPDATE SET document = EXCLUDED.document, revision = system_config.revision + 1`,
      [config],
    );

  beforeAll(async () => {
    svc = await startTestService({ PSS_RATE_LIMIT_BURST: '10000' }, [authFeature, maritimeFeature]);
    writer = (await svc.key(['maritime:write', 'maritime:read'])).key;
    const { rows } = await svc.context.pool.query<{ document: SystemConfig; revision: number }>(`SELECT document, revision FROM system_config WHERE key = 'system'`);
    savedConfig = rows[0];
    await storeConfig(SITE);
    const zone = await call(url('/maritime/zones'), writer, { method: 'POST', json: ZONE });
    expect(zone.status, zone.text).toBe(201);
    zoneId = zone.json.data.id;
  });
  afterAll(async () => {
    if (zoneId) await call(url(`/maritime/zones/${zoneId}`), writer, { method: 'DELETE' });
    if (savedConfig === undefined) await svc?.context.pool.query(`DELETE FROM system_config WHERE key = 'system'`);
    else await svc?.context.pool.query(`UPDATE system_config SET document = $1, revision = $2 WHERE key = 'system'`, [savedConfig.document, savedConfig.revision]);
    await svc?.stop();
  });

  it("lists every problem of a zone's alert rules in one 422, and stores nothing", async () => {
    const res = await call(url(`/maritime/zones/${zoneId}/rules`), writer, {
      method: 'PUT',
      json: {
        speed_rules: { max_speed_knots: 8 },
        alert_rules: {
          on_entry: {
            alert_level: 'critical',
            actions: [
              { action: 'page_everyone' },
              { action: 'dispatch_drone' },
              { action: 'escalate_to', parties: ['supervisor', 'mayor'] },
              { action: 'lock_gates', gates: [] },
              { action: 'lock_gates', gates: ['G1', 'G9'] },
            ],
          },
          on_dwell: { threshold_minutes: 0, alert_level: 'high' },
        },
      },
    });
    expect(details(res)).toEqual(expect.arrayContaining([
      '/alert_rules/on_entry/actions/0/action must be one of "notify_operator", "dispatch_drone", "escalate_to", "lock_gates", "log_event", "close_incident"',
      '/alert_rules/on_entry/actions/1/mission is required',
      `/alert_rules/on_entry/actions/2/parties/1 no party "mayor" in the system configuration (parties: ${PARTIES})`,
      '/alert_rules/on_entry/actions/3/gates must NOT have fewer than 1 items',
      '/alert_rules/on_entry/actions/4/gates/1 no gate "G9" in the system configuration (gates: G1, G2)',
      '/alert_rules/on_dwell/threshold_minutes must be >= 1',
    ]));
    expect((await call(url(`/maritime/zones/${zoneId}/rules`), writer)).json.data).toEqual({});
  });

  it('lists every problem of the bulk document in one 422, and changes nothing', async () => {
    const res = await call(url('/maritime/rules'), writer, {
      method: 'PUT',
      json: {
        alert_rules: [
          { zone: ZONE.name, on_entry: { alert_level: 'loud', actions: [{ action: 'dispatch_drone', mission: 'bombard' }] } },
          { zone: ZONE.name, on_exit: { alert_level: 'low', actions: [{ action: 'escalate_to', parties: ['harbour_master', 'navy'] }] } },
          { zone: ZONE.name },
        ],
      },
    });
    expect(details(res)).toEqual([
      '/alert_rules/0/on_entry/alert_level must be one of "info", "low", "medium", "high", "critical"',
      '/alert_rules/0/on_entry/actions/0/mission must be one of "inspect", "track", "perimeter_sweep", "evidence"',
      `/alert_rules/1/on_exit/actions/0/parties/1 no party "navy" in the system configuration (parties: ${PARTIES})`,
      '/alert_rules/2 give on_entry, on_dwell, on_exit or more',
    ]);
  });

  it('stores rules naming the configured parties and gates, serves them in both forms and to loadAlertRules', async () => {
    const rules = {
      on_entry: { alert_level: 'critical', actions: [{ action: 'notify_operator', assign_to: 'duty.officer' }, { action: 'escalate_to', parties: ['supervisor', 'harbour_master'] }, { action: 'lock_gates', gates: ['G1', 'G2'] }] },
      on_dwell: { threshold_minutes: 10, alert_level: 'high', actions: [{ action: 'dispatch_drone', mission: 'inspect' }] },
      on_exit: { alert_level: 'low', actions: [{ action: 'close_incident' }] },
    };
    const put = await call(url(`/maritime/zones/${zoneId}/rules`), writer, { method: 'PUT', json: { alert_rules: rules } });
    expect(put.status, put.text).toBe(200);
    expect((await call(url(`/maritime/zones/${zoneId}/rules`), writer)).json.data).toEqual({ alert_rules: rules });
    expect((await call(url('/maritime/rules'), writer)).json.data.alert_rules).toContainEqual({ zone: ZONE.name, ...rules });
    expect((await loadAlertRules(svc.context.pool)).get(ZONE.name)).toEqual(rules);
  });

  it('refuses a write whose party the configuration dropped after the request was checked (the write re-checks under a lock)', async () => {
    expect((await call(url(`/maritime/zones/${zoneId}/rules`), writer, { method: 'PUT', json: {} })).status).toBe(200);
    // A configuration change holds its lock (as PUT /v1/system/config does) while this request is checked and waits to write.
    const change = await svc.context.pool.connect();
    try {
      await change.query('BEGIN');
      await change.query('LOCK TABLE system_config IN EXCLUSIVE MODE');
      await change.query(`UPDATE system_config SET document = $1, revision = revision + 1 WHERE key = 'system'`, [{ ...SITE, parties: DEFAULT_SYSTEM_CONFIG.parties }]);
      const write = call(url(`/maritime/zones/${zoneId}/rules`), writer, { method: 'PUT', json: { alert_rules: { on_entry: { alert_level: 'high', actions: [{ action: 'escalate_to', parties: ['harbour_master'] }] } } } });
      await waitForLockWait(svc, 'system_config');
      await change.query('COMMIT');
      expect(details(await write)).toEqual(['/alert_rules/on_entry/actions/0/parties/0 no party "harbour_master" in the system configuration (parties: supervisor, port_authority, coast_guard)']);
    } finally {
      await change.query('ROLLBACK').catch(() => undefined);
      change.release();
      await storeConfig(SITE);
    }
    expect((await call(url(`/maritime/zones/${zoneId}/rules`), writer)).json.data).toEqual({});
  });
});

/** Until some session waits for a lock on `table` (the request's write, blocked by the held configuration lock). */
async function waitForLockWait(svc: TestService, table: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const { rows } = await svc.context.pool.query(`SELECT 1 FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = $1 AND NOT l.granted`, [table]);
    if (rows.length > 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no session waited for a lock on ${table}`);
}
