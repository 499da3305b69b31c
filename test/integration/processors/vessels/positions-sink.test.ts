import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../../../api/auth/api-keys.ts';
import { authFeature, vesselsFeature } from '../../../../app/features.ts';
import { startService, type RunningService } from '../../../../app/service.ts';
import { TopicCodec } from '../../../../platform/codec/index.ts';
import { KafkaProducer } from '../../../../platform/kafka/index.ts';
import { inTransaction } from '../../../../platform/postgres.ts';
import { newVesselState, newZonePresence } from '../../../../processors/maritime/rules/vessel-state.ts';
import { saveVesselStates } from '../../../../processors/maritime/store/vessel-state-store.ts';
import { ZoneStore } from '../../../../processors/maritime/zones/zone-store.ts';
import { startPositionSink } from '../../../../processors/vessels/positions-sink.ts';
import type { VesselPosition, VesselStatic } from '../../../../schemas/ais.ts';
import { jsonCodec } from '../../../support/codec.ts';
import { call } from '../../../support/service.ts';
import { testConfig, testKafka, testLog, unique, withAdmin } from '../../../support/stack.ts';
import { position, TRACK_SOURCE } from '../../../support/tracks.ts';

// Issue 13: positions produced to ais.positions land in PostGIS once (re-read, restarted), vessels are kept
// current from positions and static data, and the vessel API answers from them.
const BASE = 263_000_000 + Math.floor(Math.random() * 900) * 1_000;
const A = BASE + 1;
const B = BASE + 2;
const DAY = 86_400_000;
/** Yesterday's UTC midnight: the reports straddle it, so two day partitions are written. */
const MIDNIGHT = Math.floor(Date.now() / DAY) * DAY - DAY;
const at = (minute: number) => new Date(MIDNIGHT + minute * 60_000);

/** Vessel A sails north-east across midnight, one report a minute for an hour; B reports three times. */
const trackA: VesselPosition[] = Array.from({ length: 60 }, (_, i) => position(A, at(i - 30), 12.6 + i * 0.001, 55.6 + i * 0.0005, 9));
const trackB: VesselPosition[] = [position(B, at(-5), 10.1, 57.1, 0.1), position(B, at(0), 10.1, 57.1, 0.1), position(B, at(5), 10.1, 57.1, 0.1)];
const staticA: VesselStatic = {
  kind: 'static', msg_type: 5, mmsi: A, source: 'e2e', reported_at: at(-40).toISOString(), received_at: at(-40).toISOString(), raw: ['x'],
  name: 'NORTHERN LIGHT', callsign: 'OZNL', imo: 9321483, ship_type: 70, ship_category: 'cargo', to_bow: 150, to_stern: 30, to_port: 15, to_starboard: 15,
  length: 180, beam: 30, destination: 'COPENHAGEN',
};

describe('the positions sink and the vessel API', () => {
  const prefix = `${unique('vessels')}.`;
  const producer = new KafkaProducer(testKafka());
  let service: RunningService;
  let reader: string;
  let url: (path: string) => string;

  const start = async () => {
    service = await startService(testConfig({ PSS_TOPIC_PREFIX: prefix, PSS_RATE_LIMIT_BURST: '10000' }), ['api', 'processors'], testLog, [authFeature, vesselsFeature]);
    url = (path) => `${service.url}/v1${path}`;
  };
  const produce = (topic: 'aisPositions' | 'aisStatic', values: (VesselPosition | VesselStatic)[]) =>
    producer.send(values.map((v) => ({ topic: service.context.topics[topic], key: String(v.mmsi), value: jsonCodec.encode(topic, v as never) })));
  const stored = async (mmsi: number) => {
    const { rows } = await service.context.pool.query<{ n: string; distinct_times: string }>(
      'SELECT count(*) AS n, count(DISTINCT reported_at) AS distinct_times FROM vessel_positions WHERE mmsi = $1', [mmsi]);
    return { n: Number(rows[0]?.n), distinct: Number(rows[0]?.distinct_times) };
  };
  const until = async (what: () => Promise<boolean>, timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (await what()) return true;
      await new Promise((r) => setTimeout(r, 100));
    }
    return false;
  };
  /** Waits until `mmsi` has `n` rows, then a second more, so a duplicate or extra row would show. */
  const settled = async (mmsi: number, n: number) => {
    await until(async () => (await stored(mmsi)).n >= n);
    await new Promise((r) => setTimeout(r, 1_000));
    return stored(mmsi);
  };

  beforeAll(async () => {
    await start();
    reader = (await createApiKey(service.context.pool, service.context.config.environment, { name: 'vessel-reader', scopes: ['maritime:read'] }, 'test')).key;
  });
  afterAll(async () => {
    await producer.close();
    await service?.stop();
  });

  it('stores every produced position once, in the day partition of its event time', async () => {
    await produce('aisStatic', [staticA]);
    // Every report twice (a producer retry): still one row each.
    await produce('aisPositions', [...trackA, ...trackB, ...trackA]);
    expect(await settled(A, 60)).toEqual({ n: 60, distinct: 60 });
    expect(await settled(B, 3)).toEqual({ n: 3, distinct: 3 });
    const { rows } = await service.context.pool.query<{ part: string; n: string }>(
      'SELECT tableoid::regclass::text AS part, count(*) AS n FROM vessel_positions WHERE mmsi = $1 GROUP BY 1 ORDER BY 1', [A]);
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10).replaceAll('-', '');
    expect(rows).toEqual([{ part: `vessel_positions_${day(MIDNIGHT - DAY)}`, n: '30' }, { part: `vessel_positions_${day(MIDNIGHT)}`, n: '30' }]);
  });

  it('adds nothing when the whole topic is read again (a consumer that crashed before committing)', async () => {
    // A second sink in another group reads every record from the start, as after a crash before the commit.
    const rereader = await startPositionSink({ ...service.context, config: { ...service.context.config, topicPrefix: `${prefix}reread.` } });
    try {
      await produce('aisPositions', [position(A, at(30), 12.7, 55.65, 9)]);
      // The re-reader has committed the end of every partition: it has written (or met) every record.
      const topic = service.context.topics.aisPositions;
      const total = (offsets: Map<number, bigint>) => [...offsets.values()].reduce((a, b) => a + b, 0n);
      const caughtUp = await until(() => withAdmin(async (admin) => total(await admin.committedOffsets(`${prefix}reread.vessel-positions`, topic)) >= total(await admin.endOffsets(topic))));
      expect(caughtUp).toBe(true);
      expect(await settled(A, 61)).toEqual({ n: 61, distinct: 61 });
      expect((await stored(B)).n).toBe(3);
    } finally {
      await rereader.stop();
    }
  });

  it('continues after a restart of the service without losing or repeating a report', async () => {
    await service.stop();
    // Produced while no sink runs; read by the restarted group from its committed offsets.
    const producedWhileDown = [position(A, at(31), 12.701, 55.651, 9), position(A, at(32), 12.702, 55.652, 9)];
    await producer.send(producedWhileDown.map((v) => ({ topic: `${prefix}ais.positions`, key: String(v.mmsi), value: jsonCodec.encode('aisPositions', v) })));
    await start();
    expect(await settled(A, 63)).toEqual({ n: 63, distinct: 63 });
  });

  it('commits no record whose last position waits to be written, and writes it at the latest when it stops', async () => {
    const C = BASE + 4;
    const topic = service.context.topics.aisPositions;
    const group = `${prefix}held.vessel-positions`;
    const total = (offsets: Map<number, bigint>) => [...offsets.values()].reduce((a, b) => a + b, 0n);
    const committed = () => withAdmin(async (admin) => total(await admin.committedOffsets(group, topic)));
    const end = () => withAdmin(async (admin) => total(await admin.endOffsets(topic)));
    // Another group, whose last positions wait ten minutes: every record it read stays held.
    const waiting = await startPositionSink({ ...service.context, config: { ...service.context.config, topicPrefix: `${prefix}held.` } }, { lastPositionFlush: { maxAgeMs: 600_000, maxVessels: 1_000_000 } });
    try {
      await produce('aisPositions', [position(C, at(40), 11.5, 56.5, 5), position(C, at(41), 11.51, 56.5, 5)]);
      expect(await settled(C, 2)).toMatchObject({ n: 2 });
      // Stored, ticked over several times, yet not committed: a crash now would read them again.
      await new Promise((r) => setTimeout(r, 1_500));
      expect(await committed()).toBeLessThan(await end());
    } finally {
      await waiting.stop();
    }
    // The next reader of the group reads the held records again and, writing them within a second, commits to the end.
    const next = await startPositionSink({ ...service.context, config: { ...service.context.config, topicPrefix: `${prefix}held.` } });
    try {
      expect(await until(async () => (await committed()) >= (await end()))).toBe(true);
    } finally {
      await next.stop();
    }
    const { rows } = await service.context.pool.query<{ last_report_at: Date }>('SELECT last_report_at FROM vessels WHERE mmsi = $1', [C]);
    expect(rows[0]?.last_report_at.toISOString()).toBe(at(41).toISOString());
    expect(await stored(C)).toMatchObject({ n: 2 });
  });

  it('keeps the vessel current: static data, and the newest position whatever the arrival order', async () => {
    // An older report arriving late must not move the last position back.
    await produce('aisPositions', [position(A, at(-60), 1, 1, 1)]);
    await settled(A, 64);
    const res = await call(url(`/maritime/vessels/${A}`), reader);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.data).toMatchObject({
      mmsi: A, name: 'NORTHERN LIGHT', callsign: 'OZNL', imo: 9321483, ship_type: 70, category: 'cargo', destination: 'COPENHAGEN',
      dimensions: { to_bow: 150, to_stern: 30, to_port: 15, to_starboard: 15, length: 180, beam: 30 },
      last_position: { lat: 55.652, lon: 12.702, sog: 9, reported_at: at(32).toISOString(), source: TRACK_SOURCE },
      zones: [], risk_score: 0, recent_events: [],
    });
  });

  it('skips records that are not position reports without blocking the reports after them', async () => {
    const C = BASE + 3;
    const topic = service.context.topics.aisPositions;
    await producer.send([
      { topic, key: String(C), value: '{"not":"a report"}' },
      { topic, key: String(C), value: JSON.stringify({ ...position(C, at(1), 10, 57), heading: 70_000 }) },
      { topic, key: String(C), value: 'null' },
      { topic, key: String(C), value: jsonCodec.encode('aisPositions', position(C, at(2), 10, 57)) },
    ]);
    expect(await settled(C, 1)).toEqual({ n: 1, distinct: 1 });
  });

  it('stores the reports of producers that switch from JSON to the binary frame and back (an upgrade mid-stream), skipping a frame of a version it does not know', async () => {
    const D = BASE + 5;
    const topic = service.context.topics.aisPositions;
    const binary = new TopicCodec(undefined, 'binary');
    const record = (codec: TopicCodec, minute: number) => ({ topic, key: String(D), value: codec.encode('aisPositions', position(D, at(minute), 10 + minute / 1000, 57)) });
    const fromNewer = record(binary, 3);
    fromNewer.value = Buffer.from(fromNewer.value as Buffer);
    (fromNewer.value as Buffer)[1] = 99;
    const records = [record(jsonCodec, 0), record(binary, 1), fromNewer, record(jsonCodec, 2), record(binary, 4)];
    expect(records.map((r) => (typeof r.value === 'string' ? 'json' : r.value[0]))).toEqual(['json', 1, 1, 'json', 1]);
    await producer.send(records);
    expect(await settled(D, 4)).toEqual({ n: 4, distinct: 4 });
    const { rows } = await service.context.pool.query<{ lon: number }>('SELECT ST_X(position::geometry) AS lon FROM vessel_positions WHERE mmsi = $1 ORDER BY reported_at', [D]);
    expect(rows.map((r) => Math.round(r.lon * 1000))).toEqual([10_000, 10_001, 10_002, 10_004]);
  });

  it('lists vessels with the name, MMSI prefix, category, bounding box and seen-since filters', async () => {
    const mmsis = async (query: string) => {
      const res = await call(url(`/maritime/vessels?${query}`), reader);
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      return (res.json.data as { mmsi: number }[]).map((v) => v.mmsi).filter((m) => m === A || m === B);
    };
    expect(await mmsis('search=northern')).toEqual([A]);
    // Call sign (case-insensitive prefix) and IMO number, as the console's vessel search sends them.
    expect(await mmsis('search=oznl')).toEqual([A]);
    expect(await mmsis('search=9321483')).toEqual([A]);
    expect(await mmsis(`search=${encodeURIComponent('IMO 9321483')}`)).toEqual([A]);
    expect(await mmsis(`search=${String(BASE).slice(0, 6)}&per_page=200`)).toEqual(expect.arrayContaining([A, B]));
    expect(await mmsis(`search=${B}`)).toEqual([B]);
    expect(await mmsis(`category=cargo&search=${A}`)).toEqual([A]);
    expect(await mmsis(`bbox=10,57,10.2,57.2&search=${BASE.toString().slice(0, 6)}`)).toEqual([B]);
    expect(await mmsis(`seen_since=${encodeURIComponent(at(10).toISOString())}&search=${String(BASE).slice(0, 6)}`)).toEqual([A]);
    const page = await call(url(`/maritime/vessels?search=${B}&per_page=1`), reader);
    expect(page.json.pagination).toEqual({ page: 1, per_page: 1, total_items: 1, total_pages: 1, has_next: false, has_previous: false });
  });

  it('returns the track as a GeoJSON LineString in time order, with each point\'s time, and simplified on request', async () => {
    const window = `start_date=${encodeURIComponent(at(-30).toISOString())}&end_date=${encodeURIComponent(at(30).toISOString())}`;
    const res = await call(url(`/maritime/vessels/${A}/track?${window}`), reader);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const feature = res.json.data;
    expect(feature.type).toBe('Feature');
    expect(feature.geometry.type).toBe('LineString');
    expect(feature.geometry.coordinates).toEqual(trackA.map((p) => [p.lon, p.lat]));
    expect(feature.properties.times).toEqual(trackA.map((p) => p.reported_at));
    // A straight line: simplified to its ends.
    const simple = await call(url(`/maritime/vessels/${A}/track?${window}&tolerance_meters=5`), reader);
    expect(simple.json.data.geometry.coordinates).toEqual([[trackA[0]!.lon, trackA[0]!.lat], [trackA[59]!.lon, trackA[59]!.lat]]);
    expect(simple.json.data.properties).toMatchObject({ points: 2, original_points: 60, times: [trackA[0]!.reported_at, trackA[59]!.reported_at] });
  });

  it('names the zones a vessel is inside now with their dwell, and lists the vessels inside a zone', async () => {
    // The zone processor's durable state, as it checkpoints it: B inside for 25 minutes, one rung fired.
    const zone = await new ZoneStore(service.context.pool).create({
      name: unique('Vessel test anchorage'), type: 'anchorage', alert_level: 'info', active: true, geometry: { type: 'Circle', center: [10.1, 57.1], radius_meters: 500 },
    });
    const state = { ...newVesselState(B), last_seen_at: at(5).getTime(), lat: 57.1, lon: 10.1 };
    state.zones = [{ ...newZonePresence(zone.id), presence: 'inside', entered_at: at(-20).getTime(), visit_started_at: at(-20).getTime(), rungs_fired: 1, recorded: true }];
    // A risk of 40 recorded 6 h (one half-life) before the vessel's newest report reads 20 there.
    state.rules = { risk: { score: 40, at: at(5).getTime() - 6 * 3_600_000, announced: 40 } };
    await inTransaction(service.context.pool, (client) => saveVesselStates(client, [state]));
    const res = await call(url(`/maritime/vessels/${B}`), reader);
    expect(res.json.data.risk_score).toBe(20);
    expect(res.json.data.zones).toEqual([{ zone_id: zone.id, zone_name: zone.name, zone_type: 'anchorage', entered_at: at(-20).toISOString(), dwell_minutes: 25, alert_status: 'active' }]);
    for (const key of [zone.id, zone.name.toUpperCase()]) {
      const list = await call(url(`/maritime/vessels?zone=${encodeURIComponent(key)}`), reader);
      expect((list.json.data as { mmsi: number }[]).map((v) => v.mmsi)).toEqual([B]);
    }
    expect((await call(url('/maritime/vessels?zone=no-such-zone'), reader)).json.data).toEqual([]);
  });

  it('answers 404 for an unknown vessel, 422 for a bad window or box, 403 without maritime:read', async () => {
    expect((await call(url('/maritime/vessels/1'), reader)).status).toBe(404);
    expect((await call(url('/maritime/vessels/1/track'), reader)).status).toBe(404);
    expect((await call(url(`/maritime/vessels/${A}/track?start_date=2026-01-02T00:00:00Z&end_date=2026-01-01T00:00:00Z`), reader)).status).toBe(422);
    expect((await call(url('/maritime/vessels?bbox=10,58,11,57'), reader)).status).toBe(422);
    const other = (await createApiKey(service.context.pool, service.context.config.environment, { name: 'events-only', scopes: ['events:read'] }, 'test')).key;
    expect((await call(url('/maritime/vessels'), other)).status).toBe(403);
  });
});
