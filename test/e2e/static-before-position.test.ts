import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../api/auth/api-keys.ts';
import { authFeature, ingestFeature, maritimeFeature } from '../../app/features.ts';
import { startService, type RunningService } from '../../app/service.ts';
import type { InRecord } from '../../platform/kafka/index.ts';
import type { SecurityEvent } from '../../schemas/event.ts';
import { call } from '../support/service.ts';
import { consumeUntil, testConfig, testLog } from '../support/stack.ts';
import { valueOf } from '../support/codec.ts';

// Issue 8, defect 3: static data posted just before a vessel's first position, in the same request, must
// reach that position's evaluation (the vessel directory reads ais.static on its own consumer); and a
// vessel type learned after the entry re-evaluates the vessel's authorization in the zones it is in.
const ZONE = {
  name: 'Tug berth',
  type: 'restricted',
  alert_level: 'high',
  geometry: { type: 'Circle', center: [12.80, 55.60], radius_meters: 800 },
  authorized_vessels: [{ vessel_types: ['tug'] }],
} as const;
const INSIDE = { lat: 55.6, lon: 12.8 };
const VESSELS = 100;
/** MMSIs of this file: 25 7xx xxxx, clear of the other end-to-end files. */
const BASE = 257_000_000 + Math.floor(Math.random() * 900) * 1_000;

describe('static data and positions of the same vessel', () => {
  let service: RunningService;
  let sensor: string;
  let reader: string;
  let zoneId: string;

  beforeAll(async () => {
    service = await startService(testConfig({ PSS_RATE_LIMIT_BURST: '10000' }), ['api', 'processors'], testLog, [authFeature, ingestFeature, maritimeFeature]);
    const { pool, config } = service.context;
    sensor = (await createApiKey(pool, config.environment, { name: 'static-sensor', scopes: ['ingest:write'] }, 'test')).key;
    reader = (await createApiKey(pool, config.environment, { name: 'static-reader', scopes: ['maritime:read'] }, 'test')).key;
    const writer = (await createApiKey(pool, config.environment, { name: 'static-zones', scopes: ['maritime:write'] }, 'test')).key;
    const res = await call(url('/maritime/zones'), writer, { method: 'POST', json: ZONE });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    zoneId = res.json.data.id;
    // Every processor instance reloads zones on NOTIFY; give it a moment.
    await new Promise((r) => setTimeout(r, 1_000));
  });
  afterAll(async () => {
    await service?.stop();
  });

  const url = (path: string) => `${service.url}/v1${path}`;
  const tugStatic = (mmsi: number, name: string, ship_type = 52) => ({ msg_type: 5, mmsi, name, ship_type, ship_category: ship_type === 52 ? 'tug' : 'cargo' });
  const position = (mmsi: number, reported_at?: string, at = INSIDE) => ({ msg_type: 1, mmsi, ...at, sog: 0.2, cog: 10, ...(reported_at ? { reported_at } : {}) });
  const ingest = async (reports: unknown[]) => {
    const res = await call(url('/ingest/ais'), sensor, { method: 'POST', json: { reports } });
    expect(res.status, JSON.stringify(res.json)).toBe(202);
  };

  for (const round of [1, 2, 3]) {
    it(`applies a static report sent just before the first position, for ${VESSELS} of ${VESSELS} vessels (round ${round})`, async () => {
      const mmsis = Array.from({ length: VESSELS }, (_, i) => BASE + round * 100 + i);
      await ingest(mmsis.flatMap((mmsi) => [tugStatic(mmsi, `TUG ${mmsi}`), position(mmsi)]));

      const mine = new Set(mmsis);
      const entries = await readEvents((e) => e.type === 'zone_entry' && mine.has(e.metadata.mmsi as number), VESSELS);
      expect(entries).toHaveLength(VESSELS);
      const wrong = entries.filter((e) => e.severity !== 'low' || e.requires_action || e.metadata.authorized !== true || e.metadata.vessel_name !== `TUG ${e.metadata.mmsi}`);
      expect(wrong.map((e) => [e.metadata.mmsi, e.severity, e.metadata.authorized, e.metadata.vessel_name])).toEqual([]);

      const dwell = await call(url(`/maritime/zones/${zoneId}/dwell`), reader);
      const listed = (dwell.json.vessels as { mmsi: number; vessel_name: string | null; authorized: boolean }[]).filter((v) => mine.has(v.mmsi));
      expect(listed).toHaveLength(VESSELS);
      expect(listed.filter((v) => !v.authorized || v.vessel_name !== `TUG ${v.mmsi}`)).toEqual([]);
    });
  }

  it('re-evaluates authorization when the vessel type is learned after the entry', async () => {
    // Minute 20 must not be more than 5 minutes ahead (ingest refuses it), nor minute 0 older than the
    // 30 minutes of silence after which the newer reports of the first rounds would close its stay.
    const T0 = Date.now() - 16 * 60_000;
    const at = (minute: number) => new Date(T0 + minute * 60_000).toISOString();
    const unknownTug = BASE + 901;
    const formerTug = BASE + 902;
    const bystander = BASE + 903;

    // 1. An unknown vessel enters (an alert); a tug enters (recorded, authorized).
    await ingest([position(unknownTug, at(0)), tugStatic(formerTug, 'FORMER TUG'), position(formerTug, at(0))]);
    await readEvents((e) => e.type === 'zone_entry' && (e.metadata.mmsi === unknownTug || e.metadata.mmsi === formerTug), 2);

    // 2. The unknown vessel turns out to be a tug; the tug's type changes to cargo (70). Neither reports
    //    again: another vessel's report, far from every zone, is the next batch that re-evaluates them.
    await ingest([tugStatic(unknownTug, 'LATE TUG'), tugStatic(formerTug, 'FORMER TUG', 70)]);
    await ingest([position(bystander, at(1), { lat: 10, lon: 10 })]);
    const learned = await readEvents((e) => e.type === 'zone_entry' && (e.metadata.mmsi === unknownTug || e.metadata.mmsi === formerTug), 4);
    const summary = (mmsi: number) =>
      learned.filter((e) => e.metadata.mmsi === mmsi).sort((a, b) => Number(a.metadata.authorized) - Number(b.metadata.authorized)).map((e) => [e.timestamp, e.severity, e.requires_action, e.metadata.authorized, e.metadata.reason, e.metadata.vessel_name]);
    // The alert stands; a low record follows at the same report: the vessel is authorized after all.
    expect(summary(unknownTug)).toEqual([
      [at(0), 'high', true, false, 'entered', null],
      [at(0), 'low', false, true, 'authorized', 'LATE TUG'],
    ]);
    // The former tug gets the alert it would have had, from the report at which its type changed.
    expect(summary(formerTug)).toEqual([
      [at(0), 'high', true, false, 'alerting_started', 'FORMER TUG'],
      [at(0), 'low', false, true, 'entered', 'FORMER TUG'],
    ]);
    const dwell = await call(url(`/maritime/zones/${zoneId}/dwell`), reader);
    const row = (mmsi: number) => (dwell.json.vessels as { mmsi: number }[]).find((v) => v.mmsi === mmsi);
    expect(row(unknownTug)).toMatchObject({ vessel_name: 'LATE TUG', authorized: true });
    expect(row(formerTug)).toMatchObject({ vessel_name: 'FORMER TUG', authorized: false });

    // 3. Past the restricted zone's 15 minutes: the now authorized vessel does not escalate; the cargo
    //    vessel's dwell counts from the re-evaluated report.
    await ingest([position(unknownTug, at(20)), position(formerTug, at(20))]);
    const later = await readEvents((e) => e.type === 'dwell_threshold' && e.metadata.mmsi === formerTug, 1);
    expect(later.map((e) => [e.metadata.mmsi, e.timestamp])).toEqual([[formerTug, at(20)]]);
    const all = await readEvents((e) => e.metadata.mmsi === unknownTug, 2);
    expect(all.filter((e) => e.type !== 'zone_entry')).toEqual([]);
  });

  /** Reads security.events from the start until `count` events pass `wanted` (and 1 s more, so extra ones show). */
  async function readEvents(wanted: (e: SecurityEvent) => boolean, count: number): Promise<SecurityEvent[]> {
    const matching = (records: InRecord[]) => records.map((r) => valueOf(r) as SecurityEvent).filter(wanted);
    const records = await consumeUntil(service.context.topics.securityEvents, (seen) => matching(seen).length >= count, { timeoutMs: 30_000, quietMs: 1_000 });
    const events = matching(records);
    return [...new Map(events.map((e) => [e.id, e])).values()];
  }
});
