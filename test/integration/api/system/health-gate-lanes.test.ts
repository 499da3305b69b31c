// Issue 25, item 4 for gate lanes: with PSS_GATE_LANE_SILENCE_MS set, a lane that stops sending readings
// is gate_lane:<gate>/<lane> down in GET /v1/system/health and one system_health_change (high); a lane
// that keeps sending stays ok. Off by default (lanes follow the shifts). A scratch database: the health
// reports and transitions are database-wide.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authFeature, ingestFeature, systemFeature } from '../../../../app/features.ts';
import { topicSpecs } from '../../../../platform/topics.ts';
import { scratchDatabase, type ScratchDatabase } from '../../../support/scratch-database.ts';
import { reading } from '../../../support/gate-readings.ts';
import { call, startTestService, type TestService } from '../../../support/service.ts';
import { unique, withAdmin } from '../../../support/stack.ts';

describe('gate lane silence', () => {
  let db: ScratchDatabase;
  let svc: TestService;
  let sensor: string;
  let reader: string;
  const gate = unique('gate');
  // Topics of its own: the health event must not reach the run's shared security.events.
  const prefix = `${unique('lanes')}.`;

  beforeAll(async () => {
    db = await scratchDatabase('lanes');
    svc = await startTestService(
      { PSS_DATABASE_URL: db.url, PSS_TOPIC_PREFIX: prefix, PSS_HEALTH_REPORT_INTERVAL_MS: '300', PSS_HEALTH_DEBOUNCE_MS: '300', PSS_GATE_LANE_SILENCE_MS: '2000' },
      [authFeature, ingestFeature, systemFeature],
    );
    sensor = (await svc.key(['ingest:write'])).key;
    reader = (await svc.key(['system:read'])).key;
  });
  afterAll(async () => {
    await svc?.stop();
    await db?.drop();
    await withAdmin((admin) => admin.deleteTopics(topicSpecs(prefix).map((t) => t.name))).catch(() => undefined);
  });

  const lanes = async () => {
    const res = await call(`${svc.url}/v1/system/health`, reader);
    expect(res.status).toBe(200);
    return Object.fromEntries((res.json.data.components as { component: string; status: string; reason: string }[]).filter((c) => c.component.startsWith(`gate_lane:${gate}/`)).map((c) => [c.component, c]));
  };

  it('names a lane that stopped sending down, once, while the lane that goes on stays ok', async () => {
    const send = async (lane: string, n: number) => {
      const res = await call(`${svc.url}/v1/ingest/gate`, sensor, { method: 'POST', json: reading({ reading_id: `${gate}-${lane}-${n}`, gate, lane }) });
      expect(res.status, JSON.stringify(res.json)).toBe(202);
    };
    for (let n = 0; n < 3; n++) {
      await Promise.all([send('lane-1', n), send('lane-2', n)]);
      await new Promise((r) => setTimeout(r, 300));
    }
    expect(Object.values(await lanes()).map((c) => c.status)).toEqual(['ok', 'ok']);
    // lane-2 stops; lane-1 goes on past the limit and the debounce.
    for (let n = 3; n < 16; n++) {
      await send('lane-1', n);
      await new Promise((r) => setTimeout(r, 300));
    }
    const now = await lanes();
    expect(now[`gate_lane:${gate}/lane-1`]?.status).toBe('ok');
    expect(now[`gate_lane:${gate}/lane-2`]).toMatchObject({ status: 'down', reason: expect.stringMatching(/^no reading for [\d.]+ s \(limit 2 s\)/) });
    const { rows } = await svc.context.pool.query<{ body: { severity: string; metadata: { component: string; status: string } } }>(`SELECT body FROM security_events WHERE type = 'system_health_change'`);
    expect(rows.map((r) => [r.body.metadata.component, r.body.metadata.status, r.body.severity])).toEqual([[`gate_lane:${gate}/lane-2`, 'down', 'high']]);
  }, 60_000);
});
