// Issue 33, item 9, on the real Postgres and Kafka: with the shipped parties (no webhooks), a processors
// instance reports every escalation party degraded ("no receiver") in GET /v1/system/health and, after the
// debounce, one system_health_change each; a party given an active webhook by PUT /v1/system/config is back
// to ok with one more event. A scratch database and topics of its own: the health events and the
// configuration must not reach other tests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../../api/auth/api-keys.ts';
import { authFeature, responseFeature, systemFeature } from '../../../app/features.ts';
import { startService, type RunningService } from '../../../app/service.ts';
import { topicSpecs } from '../../../platform/topics.ts';
import { DEFAULT_SYSTEM_CONFIG, type SystemConfig } from '../../../schemas/system-config.ts';
import { scratchDatabase, type ScratchDatabase } from '../../support/scratch-database.ts';
import { call } from '../../support/service.ts';
import { testConfig, testLog, unique, withAdmin } from '../../support/stack.ts';

interface Component { component: string; status: string; reason: string }
interface HealthEvent { title: string; severity: string; metadata: { component: string; status: string; previous_status: string; reason: string } }

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const got = await probe();
    if (got !== undefined) return got;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('escalation parties in the health model', () => {
  let db: ScratchDatabase;
  let svc: RunningService;
  let admin: string;
  const prefix = `${unique('partyhealth')}.`;
  const url = (path: string) => `${svc.url}/v1${path}`;
  const parties = async () => {
    const res = await call(url('/system/health'), admin);
    expect(res.status).toBe(200);
    return Object.fromEntries((res.json.data.components as Component[]).filter((c) => c.component.startsWith('escalation_party:')).map((c) => [c.component, c]));
  };
  const healthEvents = async () =>
    (await svc.context.pool.query<{ body: HealthEvent }>(`SELECT body FROM security_events WHERE type = 'system_health_change' AND body->'metadata'->>'component' LIKE 'escalation_party:%' ORDER BY occurred_at, id`)).rows.map((r) => r.body);

  beforeAll(async () => {
    db = await scratchDatabase('party_health');
    const config = testConfig({ PSS_DATABASE_URL: db.url, PSS_TOPIC_PREFIX: prefix, PSS_HEALTH_REPORT_INTERVAL_MS: '300', PSS_HEALTH_DEBOUNCE_MS: '300' });
    svc = await startService(config, ['api', 'processors'], testLog, [authFeature, systemFeature, responseFeature]);
    admin = (await createApiKey(svc.context.pool, config.environment, { name: 'party-health', scopes: ['admin'] }, 'test')).key;
  }, 60_000);
  afterAll(async () => {
    await svc?.stop();
    await db?.drop();
    await withAdmin((a) => a.deleteTopics(topicSpecs(prefix).map((t) => t.name))).catch(() => undefined);
  });

  it('the shipped parties: each degraded, no receiver, and one system_health_change (medium) each', async () => {
    const seen = await until('the three parties', async () => {
      const p = await parties();
      return Object.keys(p).length === 3 ? p : undefined;
    });
    expect(Object.values(seen).map((c) => [c.component, c.status])).toEqual([
      ['escalation_party:coast_guard', 'degraded'],
      ['escalation_party:port_authority', 'degraded'],
      ['escalation_party:supervisor', 'degraded'],
    ]);
    expect(seen['escalation_party:supervisor']?.reason).toContain('Shift supervisor: no receiver: no webhook_ids, so its escalations are recorded and nobody is told (reached by escalation_order; the built-in dwell_time escalation)');
    const events = await until('their events', async () => {
      const e = await healthEvents();
      return e.length === 3 ? e : undefined;
    });
    expect(events.map((e) => [e.title, e.severity, e.metadata.status, e.metadata.previous_status]).sort()).toEqual([
      ['Escalation party coast_guard is degraded', 'medium', 'degraded', 'ok'],
      ['Escalation party port_authority is degraded', 'medium', 'degraded', 'ok'],
      ['Escalation party supervisor is degraded', 'medium', 'degraded', 'ok'],
    ]);
  });

  it('a party given an active webhook recovers: ok in the health, one event back to ok; the others stay degraded', async () => {
    await svc.context.pool.query(`INSERT INTO webhooks (id, name, url, events, secret_sealed, secret_hint) VALUES ('wh_sup', 'Supervisor pager', 'https://hooks.example.com/sup', '{*}', 'sealed', 'abcd')`);
    const next = structuredClone(DEFAULT_SYSTEM_CONFIG) as SystemConfig;
    (next.parties[0] as { webhook_ids: string[] }).webhook_ids.push('wh_sup');
    const put = await call(url('/system/config'), admin, { method: 'PUT', json: next });
    expect(put.status).toBe(200);
    expect(put.json.warnings.map((w: { party: string }) => w.party)).toEqual(['port_authority', 'coast_guard']);

    await until('the supervisor back to ok', async () => ((await parties())['escalation_party:supervisor']?.status === 'ok' ? true : undefined));
    const now = await parties();
    expect(now['escalation_party:port_authority']?.status).toBe('degraded');
    expect(now['escalation_party:coast_guard']?.status).toBe('degraded');
    const back = await until('the event of its return', async () => {
      const e = (await healthEvents()).filter((x) => x.metadata.component === 'escalation_party:supervisor');
      return e.length === 2 ? e : undefined;
    });
    expect(back.map((e) => [e.title, e.severity, e.metadata.status])).toEqual([
      ['Escalation party supervisor is degraded', 'medium', 'degraded'],
      ['Escalation party supervisor is back to ok', 'low', 'ok'],
    ]);
    expect(await healthEvents()).toHaveLength(4);
  });
});
