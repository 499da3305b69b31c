import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../api/auth/api-keys.ts';
import { authFeature, maritimeFeature } from '../../app/features.ts';
import { startService, type RunningService } from '../../app/service.ts';
import { KafkaProducer } from '../../platform/kafka/index.ts';
import type { VesselPosition } from '../../schemas/ais.ts';
import type { SecurityEvent } from '../../schemas/event.ts';
import { valueOf } from '../support/codec.ts';
import { call, expectErrorBody } from '../support/service.ts';
import { consumeUntil, testConfig, testKafka, testLog, unique } from '../support/stack.ts';
import { position, track } from '../support/tracks.ts';

// Issue 12 "Done means": rules written through the API, positions through the real broker, rule events
// read back from security.events; a rule changed through the API takes effect on the running processor.
const T0 = new Date('2026-11-21T06:00:00Z');
const TANKER = 219001201;
const TUG = 219001202;
const PILOT = 219001203;
const DARK = 219001204;
const CHATTY = 219001205;
const tag = unique('rules');
const BERTH = { name: `Cruise berth ${tag}`, type: 'restricted', alert_level: 'high', geometry: { type: 'Polygon', coordinates: [[[14.000, 54.500], [14.010, 54.500], [14.010, 54.506], [14.000, 54.506], [14.000, 54.500]]] } };
const HARBOUR = { name: `Inner harbour ${tag}`, type: 'monitoring', alert_level: 'low', geometry: { type: 'Circle', center: [14.100, 54.500], radius_meters: 3000 } };

describe('maritime rules end to end', () => {
  let service: RunningService;
  let writer: string;
  let reader: string;
  const producer = new KafkaProducer(testKafka());
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    service = await startService(testConfig(), ['api', 'processors'], testLog, [authFeature, maritimeFeature]);
    const { pool, config: c } = service.context;
    writer = (await createApiKey(pool, c.environment, { name: 'rules-admin', scopes: ['maritime:write', 'maritime:read'] }, 'test')).key;
    reader = (await createApiKey(pool, c.environment, { name: 'rules-reader', scopes: ['maritime:read'] }, 'test')).key;
  });
  afterAll(async () => {
    await producer.close();
    await service?.stop();
  });

  const url = (path: string) => `${service.url}/v1${path}`;
  const send = (positions: VesselPosition[]) => producer.send(positions.map((p) => ({ topic: service.context.topics.aisPositions, key: String(p.mmsi), value: JSON.stringify(p) })));
  const readEvents = async (enough: (events: SecurityEvent[]) => boolean) => {
    const decode = (records: { topic: string; value: string | Buffer }[]) => records.map((r) => valueOf(r) as SecurityEvent).filter((e) => typeof e.metadata.mmsi === 'number' && [TANKER, TUG, PILOT, DARK, CHATTY].includes(e.metadata.mmsi as number));
    return decode(await consumeUntil(service.context.topics.securityEvents, (seen) => enough(decode(seen)), { timeoutMs: 45_000 }));
  };

  it('stores rules in the spec structures, refusing unknown zones (422) and read-only keys (403)', async () => {
    for (const [kind, body] of Object.entries({ berth: BERTH, harbour: HARBOUR })) {
      const res = await call(url('/maritime/zones'), writer, { method: 'POST', json: body });
      expect(res.status, JSON.stringify(res.json)).toBe(201);
      ids[kind] = res.json.data.id;
    }
    const doc = {
      vessel_type_rules: [{ zone: BERTH.name, denied_types: ['tanker'], alert_on_denied_entry: true, alert_level: 'critical' }],
      speed_rules: [{ zone: HARBOUR.name, max_speed_knots: 6, alert_on_violation: true, alert_level: 'medium' }],
    };
    const unknown = await call(url('/maritime/rules'), writer, { method: 'PUT', json: { ...doc, ais_rules: [{ zone: 'No such zone', alert_on: [{ ais_loss_seconds: 300 }] }] } });
    expectErrorBody(unknown, 422, 'validation_error');
    expect(JSON.stringify(unknown.json)).toContain('/ais_rules/0/zone');
    expectErrorBody(await call(url('/maritime/rules'), reader, { method: 'PUT', json: doc }), 403, 'forbidden');
    const stored = await call(url('/maritime/rules'), writer, { method: 'PUT', json: doc });
    expect(stored.status, JSON.stringify(stored.json)).toBe(200);
    const one = await call(url(`/maritime/zones/${ids.berth}/rules`), reader);
    expect(one.json.data).toEqual({ vessel_type_rules: { denied_types: ['tanker'], alert_on_denied_entry: true, alert_level: 'critical' } });
    const all = await call(url('/maritime/rules'), reader);
    expect(all.json.data.speed_rules).toContainEqual({ zone: HARBOUR.name, max_speed_knots: 6, alert_on_violation: true, alert_level: 'medium' });
    expectErrorBody(await call(url('/maritime/zones/zone_missing/rules'), reader), 404, 'not_found');
    const minAboveMax = await call(url(`/maritime/zones/${ids.harbour}/rules`), writer, { method: 'PUT', json: { speed_rules: { max_speed_knots: 5, min_speed_knots: 6 } } });
    expectErrorBody(minAboveMax, 422, 'validation_error');
  });

  it('turns positions into rule events: a denied tanker in the berth, a tug speeding in the harbour', async () => {
    await producer.send([{ topic: service.context.topics.aisStatic, key: String(TANKER), value: JSON.stringify({ kind: 'static', msg_type: 5, mmsi: TANKER, source: 'e2e', reported_at: T0.toISOString(), received_at: T0.toISOString(), raw: ['x'], name: 'NORDIC OIL', ship_category: 'tanker' }) }]);
    await send([
      ...track(TANKER, T0, [{ minute: 0, lon: 13.990, lat: 54.503 }, { minute: 10, lon: 14.005, lat: 54.503 }], 60, 4),
      ...track(TUG, T0, [{ minute: 0, lon: 14.100, lat: 54.500 }, { minute: 5, lon: 14.110, lat: 54.500 }], 30, 10),
    ]);
    const events = await readEvents((seen) => seen.some((e) => e.type === 'vessel_type_violation') && seen.some((e) => e.type === 'speed_anomaly'));
    const violation = events.find((e) => e.type === 'vessel_type_violation')!;
    expect(violation).toMatchObject({ severity: 'critical', source_module: 'maritime.rules', location: { zone: BERTH.name }, metadata: { mmsi: TANKER, vessel_name: 'NORDIC OIL', verdict: 'denied' } });
    const speeding = events.find((e) => e.type === 'speed_anomaly')!;
    expect(speeding).toMatchObject({ severity: 'medium', metadata: { mmsi: TUG, speed_knots: 10, limit_knots: 6, alert_level: 'medium' } });
    expect(events.filter((e) => e.type === 'speed_anomaly')).toHaveLength(1);
  });

  it('applies rules changed through the API to the running processor, without a restart', async () => {
    const put = await call(url(`/maritime/zones/${ids.harbour}/rules`), writer, {
      method: 'PUT',
      json: { speed_rules: { max_speed_knots: 12 }, ais_rules: { alert_on: [{ position_jump_nm: 1 }], alert_level: 'high' } },
    });
    expect(put.status, JSON.stringify(put.json)).toBe(200);
    expect(put.json.data.speed_rules).toEqual({ max_speed_knots: 12, alert_on_violation: true, alert_level: 'medium' });
    // The processor reloads on the NOTIFY of that commit; give it a moment before the next reports.
    await new Promise((r) => setTimeout(r, 2_000));
    const later = new Date(T0.getTime() + 3_600_000);
    await send([
      ...track(PILOT, later, [{ minute: 0, lon: 14.100, lat: 54.495 }, { minute: 3, lon: 14.105, lat: 54.495 }], 30, 10),
      position(PILOT, new Date(later.getTime() + 200_000), 14.105, 54.530, 10),
    ]);
    const events = await readEvents((seen) => seen.some((e) => e.type === 'position_jump'));
    const jump = events.find((e) => e.type === 'position_jump')!;
    expect(jump).toMatchObject({ severity: 'high', metadata: { mmsi: PILOT, position_jump_nm: 1, trigger: 'position_jump_nm' } });
    // 10 kn is under the new limit of 12: the same speed that alerted for the tug alerts nothing now.
    expect(events.filter((e) => e.type === 'speed_anomaly' && e.metadata.mmsi === PILOT)).toEqual([]);
  });

  it('raises ais_gap while the vessel is still silent, as the other traffic of its partition advances event time', async () => {
    const put = await call(url(`/maritime/zones/${ids.harbour}/rules`), writer, { method: 'PUT', json: { ais_rules: { alert_on: [{ ais_loss_seconds: 60 }], alert_level: 'high' } } });
    expect(put.status, JSON.stringify(put.json)).toBe(200);
    await new Promise((r) => setTimeout(r, 2_000));
    const start = new Date(T0.getTime() + 2 * 3_600_000);
    // The watermark is per partition: the vessel that keeps reporting is sent with the silent one's key, so
    // both land on one partition, as two vessels of one partition would.
    const chatty = track(CHATTY, start, [{ minute: 0, lon: 14.090, lat: 54.505 }, { minute: 10, lon: 14.095, lat: 54.505 }], 30, 3);
    const records = [
      ...track(DARK, start, [{ minute: 0, lon: 14.100, lat: 54.505 }, { minute: 2, lon: 14.101, lat: 54.505 }], 30, 3).map((p) => ({ key: String(DARK), p })),
      ...chatty.slice(0, -1).map((p) => ({ key: String(DARK), p })),
    ];
    await producer.send(records.map(({ key, p }) => ({ topic: service.context.topics.aisPositions, key, value: JSON.stringify(p) })));
    // Housekeeping runs at most every 10 s of wall clock (with a batch, or on an idle tick): one more report after that.
    await new Promise((r) => setTimeout(r, 11_000));
    await producer.send([{ topic: service.context.topics.aisPositions, key: String(DARK), value: JSON.stringify(chatty[chatty.length - 1]) }]);
    const events = await readEvents((seen) => seen.some((e) => e.type === 'ais_gap' && e.metadata.mmsi === DARK));
    const gap = events.find((e) => e.type === 'ais_gap' && e.metadata.mmsi === DARK)!;
    expect(gap).toMatchObject({ severity: 'high', source_device: 'ais-silence', timestamp: new Date(start.getTime() + 180_000).toISOString(), metadata: { ais_loss_seconds: 60 } });
    expect(events.some((e) => e.type === 'ais_gap_end' && e.metadata.mmsi === DARK)).toBe(false);
    expect(events.some((e) => e.type === 'ais_gap' && e.metadata.mmsi === CHATTY)).toBe(false);
  });
});
