import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../api/auth/api-keys.ts';
import { authFeature, maritimeFeature } from '../../app/features.ts';
import { startService, type RunningService } from '../../app/service.ts';
import { KafkaProducer, type InRecord } from '../../platform/kafka/index.ts';
import type { SecurityEvent } from '../../schemas/event.ts';
import type { VesselPosition } from '../../schemas/ais.ts';
import { call, expectErrorBody } from '../support/service.ts';
import { consumeUntil, testConfig, testKafka, testLog } from '../support/stack.ts';
import { track } from '../support/tracks.ts';
import { valueOf } from '../support/codec.ts';
import { newEventRecords } from '../support/event-records.ts';

// Issue 5 "Done means": zones of all four types created through the API, crafted tracks through the
// real broker, events read back from the topic, dwell from the endpoint, and a processor restart.
const T0 = new Date('2026-11-20T10:00:00Z');
const at = (minute: number) => new Date(T0.getTime() + minute * 60_000).toISOString();

const ZONES = {
  exclusion: {
    name: 'Naval berth', type: 'exclusion', alert_level: 'critical',
    geometry: { type: 'Polygon', coordinates: [[[12.600, 55.690], [12.610, 55.690], [12.610, 55.696], [12.600, 55.696], [12.600, 55.690]]] },
    buffer: { enabled: true, distance_meters: 300, alert_level: 'high', message: 'Approaching the naval berth' },
  },
  restricted: {
    name: 'Fuel terminal', type: 'restricted', alert_level: 'high',
    geometry: { type: 'Circle', center: [12.650, 55.700], radius_meters: 500 },
    authorized_vessels: [{ vessel_types: ['pilot', 'tug'] }, { mmsi_list: [219000999] }],
  },
  monitoring: {
    name: 'Approach channel', type: 'monitoring', alert_level: 'medium',
    geometry: { type: 'Corridor', centerline: [[12.550, 55.720], [12.575, 55.725], [12.600, 55.730]], width_meters: 400 },
  },
  anchorage: {
    name: 'Outer anchorage', type: 'anchorage', alert_level: 'low',
    geometry: { type: 'MultiPolygon', coordinates: [
      [[[12.700, 55.650], [12.710, 55.650], [12.710, 55.655], [12.700, 55.655], [12.700, 55.650]]],
      [[[12.720, 55.650], [12.730, 55.650], [12.730, 55.655], [12.720, 55.655], [12.720, 55.650]]],
    ] },
  },
} as const;

describe('maritime threat zones end to end', () => {
  let service: RunningService;
  let writer: string;
  let reader: string;
  const producer = new KafkaProducer(testKafka());
  const zoneIds: Record<string, string> = {};
  const config = testConfig();

  beforeAll(async () => {
    service = await startService(config, ['api', 'processors'], testLog, [authFeature, maritimeFeature]);
    const { pool, config: c } = service.context;
    writer = (await createApiKey(pool, c.environment, { name: 'zones-admin', scopes: ['maritime:write', 'maritime:read'] }, 'test')).key;
    reader = (await createApiKey(pool, c.environment, { name: 'zones-reader', scopes: ['maritime:read'] }, 'test')).key;
  });
  afterAll(async () => {
    await producer.close();
    await service?.stop();
  });

  const url = (path: string) => `${service.url}/v1${path}`;
  const send = (positions: VesselPosition[]) =>
    producer.send(positions.map((p) => ({ topic: service.context.topics.aisPositions, key: String(p.mmsi), value: JSON.stringify(p) })));

  it('creates zones of all four geometry types', async () => {
    for (const [kind, body] of Object.entries(ZONES)) {
      const res = await call(url('/maritime/zones'), writer, { method: 'POST', json: body });
      expect(res.status, JSON.stringify(res.json)).toBe(201);
      expect(res.json.data).toMatchObject({ name: body.name, type: body.type, active: true });
      zoneIds[kind] = res.json.data.id;
    }
    // Other test files share this database, so check what the filter promises rather than an exact list.
    const list = await call(url('/maritime/zones?type=restricted&per_page=200'), reader);
    expect(list.json.data.map((z: { name: string }) => z.name)).toContain('Fuel terminal');
    expect(list.json.data.every((z: { type: string }) => z.type === 'restricted')).toBe(true);
    expect(list.json.pagination.total_items).toBe(list.json.data.length);
  });

  it('refuses invalid geometry with 422 and the reason, a read-only key with 403, a taken name with 409', async () => {
    const bad = async (geometry: unknown) => call(url('/maritime/zones'), writer, { method: 'POST', json: { name: 'Bad', type: 'monitoring', alert_level: 'low', geometry } });
    const unclosed = await bad({ type: 'Polygon', coordinates: [[[12.6, 55.6], [12.7, 55.6], [12.7, 55.7], [12.6, 55.7]]] });
    expectErrorBody(unclosed, 422, 'validation_error');
    expect(unclosed.json.error.message).toMatch(/not closed|unclosed/i);
    const bowtie = await bad({ type: 'Polygon', coordinates: [[[12.6, 55.6], [12.7, 55.7], [12.7, 55.6], [12.6, 55.7], [12.6, 55.6]]] });
    expectErrorBody(bowtie, 422, 'validation_error');
    expect(bowtie.json.error.message).toMatch(/intersect/i);
    expectErrorBody(await bad({ type: 'Circle', center: [12.6, 55.6], radius_meters: 0 }), 422, 'validation_error');
    expectErrorBody(await bad({ type: 'Circle', center: [212.6, 55.6], radius_meters: 10 }), 422, 'validation_error');
    expectErrorBody(await bad({ type: 'Corridor', centerline: [[12.6, 55.6], [12.7, 55.6]], width_meters: -5 }), 422, 'validation_error');
    expectErrorBody(await call(url('/maritime/zones'), reader, { method: 'POST', json: ZONES.monitoring }), 403, 'forbidden');
    expectErrorBody(await call(url('/maritime/zones'), writer, { method: 'POST', json: ZONES.monitoring }), 409, 'resource_conflict');
    expectErrorBody(await call(url('/maritime/zones/zone_nope/dwell'), reader), 404, 'not_found');
  });

  it('fires buffer, entry, dwell and exit events at the right event times', async () => {
    // Static data first, so events carry the vessel's name.
    await producer.send([{ topic: service.context.topics.aisStatic, key: '219000101', value: JSON.stringify({ kind: 'static', msg_type: 5, mmsi: 219000101, source: 'e2e', reported_at: T0.toISOString(), received_at: T0.toISOString(), raw: ['x'], name: 'NORDIC INTRUDER', ship_category: 'cargo' }) }]);
    await new Promise((r) => setTimeout(r, 1_500));
    // V1 crosses the exclusion polygon west to east: buffer at ~minute 2, inside from minute 4 to 10.
    const v1 = track(219000101, T0, [{ minute: 0, lon: 12.590, lat: 55.693 }, { minute: 4, lon: 12.6008, lat: 55.693 }, { minute: 10, lon: 12.6092, lat: 55.693 }, { minute: 16, lon: 12.625, lat: 55.693 }]);
    // V2 enters the restricted circle at minute 0 and stays 80 minutes, leaves, and comes back within the reset window.
    const v2 = [
      ...track(219000202, T0, [{ minute: 0, lon: 12.650, lat: 55.700 }, { minute: 80, lon: 12.651, lat: 55.700 }]),
      ...track(219000202, new Date(T0.getTime() + 81 * 60_000), [{ minute: 0, lon: 12.670, lat: 55.700 }, { minute: 10, lon: 12.671, lat: 55.700 }]),
      ...track(219000202, new Date(T0.getTime() + 100 * 60_000), [{ minute: 0, lon: 12.650, lat: 55.700 }, { minute: 5, lon: 12.650, lat: 55.701 }]),
    ];
    // V3 runs along the corridor; V4 anchors in the second polygon of the anchorage.
    const v3 = track(219000303, T0, [{ minute: 0, lon: 12.540, lat: 55.7185 }, { minute: 30, lon: 12.600, lat: 55.730 }, { minute: 40, lon: 12.620, lat: 55.734 }]);
    const v4 = track(219000404, T0, [{ minute: 0, lon: 12.725, lat: 55.6525 }, { minute: 20, lon: 12.7251, lat: 55.6525 }]);
    // An authorized tug by MMSI list: no alert.
    const v5 = track(219000999, T0, [{ minute: 0, lon: 12.650, lat: 55.700 }, { minute: 20, lon: 12.650, lat: 55.7005 }]);
    await send([...v1, ...v2, ...v3, ...v4, ...v5]);

    const events = await readEvents((seen) => seen.some((e) => e.metadata.mmsi === 219000202 && e.type === 'zone_entry' && e.metadata.carried_over_minutes !== undefined) && seen.some((e) => e.metadata.mmsi === 219000101 && e.type === 'zone_exit'));
    const of = (mmsi: number) => events.filter((e) => e.metadata.mmsi === mmsi).map((e) => [e.type, e.timestamp, e.severity]);

    expect(of(219000101)).toEqual([
      ['zone_approach', at(2), 'high'],
      ['zone_entry', at(4), 'critical'],
      ['dwell_threshold', at(4), 'medium'],
      ['zone_exit', at(11), 'low'],
    ]);
    const entry = events.find((e) => e.metadata.mmsi === 219000101 && e.type === 'zone_entry')!;
    expect(entry).toMatchObject({ category: 'maritime', source_module: 'maritime.zones', requires_action: true, location: { zone: 'Naval berth' } });
    expect(entry.metadata).toMatchObject({ vessel_name: 'NORDIC INTRUDER', vessel_type: 'cargo', zone_id: zoneIds.exclusion, speed: 8, course: 90 });

    // Restricted: threshold 15 min; escalation 15/30/60 min past it; re-entry within 30 min carries the dwell over.
    expect(of(219000202)).toEqual([
      ['zone_entry', at(0), 'high'],
      ['dwell_threshold', at(15), 'medium'],
      ['dwell_escalation', at(30), 'high'],
      ['dwell_escalation', at(45), 'high'],
      ['dwell_escalation', at(75), 'critical'],
      ['zone_exit', at(81), 'low'],
      // Issue 12: a second unauthorized entry into a restricted zone takes the vessel's risk score to 29.
      ['risk_score_change', at(100), 'medium'],
      ['zone_entry', at(100), 'high'],
    ]);
    const reentry = events.filter((e) => e.metadata.mmsi === 219000202 && e.type === 'zone_entry')[1]!;
    expect(reentry.metadata.carried_over_minutes).toBe(81);

    expect(of(219000303).map(([type]) => type)).toEqual(['zone_entry', 'zone_exit']);
    expect(of(219000404)).toEqual([['zone_entry', at(0), 'low']]);
    // The authorized vessel is recorded, not alerted.
    const tug = events.filter((e) => e.metadata.mmsi === 219000999);
    expect(tug.map((e) => [e.type, e.severity, e.requires_action, e.metadata.authorized])).toEqual([['zone_entry', 'low', false, true]]);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  });

  it('reports dwell per vessel from the dwell endpoint', async () => {
    const res = await call(url(`/maritime/zones/${zoneIds.restricted}/dwell`), reader);
    expect(res.status).toBe(200);
    expect(res.json.zone_id).toBe(zoneIds.restricted);
    expect(res.json.zone_name).toBe('Fuel terminal');
    const byMmsi = Object.fromEntries(res.json.vessels.map((v: { mmsi: number }) => [v.mmsi, v]));
    // As of the newest report in the zone (minute 105): V2 carried 81 min and is 5 min into its second stay.
    expect(byMmsi[219000202]).toMatchObject({ entered_at: at(100), dwell_minutes: 86, authorized: false, alert_status: 'escalated' });
    expect(byMmsi[219000999]).toMatchObject({ authorized: true, alert_status: 'none' });
  });

  it('continues the same timers after a processor restart, with no lost and no duplicate events', async () => {
    const mmsi = 219000505;
    const stay = track(mmsi, T0, [{ minute: 0, lon: 12.6505, lat: 55.7003 }, { minute: 40, lon: 12.6506, lat: 55.7003 }]);
    await send(stay.slice(0, 10));
    await readEvents((seen) => seen.some((e) => e.metadata.mmsi === mmsi && e.type === 'zone_entry'));

    await service.stop();
    service = await startService(config, ['api', 'processors'], testLog, [authFeature, maritimeFeature]);
    // Replaying already-processed reports (as after a crash before the offset commit) must change nothing.
    await send([...stay.slice(5, 10), ...stay.slice(10)]);
    const events = await readEvents((seen) => seen.some((e) => e.metadata.mmsi === mmsi && e.type === 'dwell_escalation'));
    const mine = events.filter((e) => e.metadata.mmsi === mmsi);
    expect(mine.map((e) => [e.type, e.timestamp])).toEqual([
      ['zone_entry', at(0)],
      ['dwell_threshold', at(15)],
      ['dwell_escalation', at(30)],
    ]);
    expect(new Set(mine.map((e) => e.id)).size).toBe(mine.length);
  });

  async function readEvents(enough: (events: SecurityEvent[]) => boolean): Promise<SecurityEvent[]> {
    // New events only: the response loop of another file's processors may have republished its own
    // events on this topic with their incident_id (updates), which are not copies.
    const decode = (records: InRecord[]) => newEventRecords(records).map((r) => valueOf(r) as SecurityEvent);
    const records = await consumeUntil(service.context.topics.securityEvents, (seen) => enough(decode(seen)), { timeoutMs: 45_000 });
    return decode(records).sort((a, b) => a.timestamp.localeCompare(b.timestamp) || order(a.type) - order(b.type));
  }
});

const ORDER = ['zone_approach', 'zone_entry', 'dwell_threshold', 'dwell_escalation', 'zone_exit'];
function order(type: string): number {
  return ORDER.indexOf(type);
}

