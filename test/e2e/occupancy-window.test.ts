import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../api/auth/api-keys.ts';
import { authFeature, maritimeFeature } from '../../app/features.ts';
import { startService, type RunningService } from '../../app/service.ts';
import { KafkaProducer } from '../../platform/kafka/index.ts';
import type { VesselPosition } from '../../schemas/ais.ts';
import type { SecurityEvent } from '../../schemas/event.ts';
import { valueOf } from '../support/codec.ts';
import { call } from '../support/service.ts';
import { consumeUntil, testConfig, testKafka, testLog, unique } from '../support/stack.ts';
import { position } from '../support/tracks.ts';

// Issue 12, item 5: a time rule's window that opens on a zone already over its limit alerts when it opens
// (in event time), not only at the next entry or exit; and only once while it stays exceeded. A time rule
// added while vessels are inside counts them at their next report. Topics of this file's own, so event
// time is only what it sends.
const DAY = '2026-11-21';
const at = (hhmm: string) => new Date(`${DAY}T${hhmm}:00Z`);
const VESSELS = [219_002_301, 219_002_302, 219_002_303];
const ANCHORAGE = { name: `Outer anchorage ${unique('window')}`, type: 'anchorage', alert_level: 'low', geometry: { type: 'Circle', center: [14.3, 54.7], radius_meters: 2000 } };
const WEEK = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

describe('a time rule window opening on a crowded zone', () => {
  const prefix = `${unique('window')}.`;
  const producer = new KafkaProducer(testKafka());
  let service: RunningService;
  let writer: string;

  beforeAll(async () => {
    service = await startService(testConfig({ PSS_TOPIC_PREFIX: prefix }), ['api', 'processors'], testLog, [authFeature, maritimeFeature]);
    writer = (await createApiKey(service.context.pool, service.context.config.environment, { name: 'window-admin', scopes: ['maritime:write', 'maritime:read'] }, 'test')).key;
  });
  afterAll(async () => {
    await producer.close();
    await service?.stop();
  });

  const url = (path: string) => `${service.url}/v1${path}`;
  const send = (positions: VesselPosition[]) => producer.send(positions.map((p) => ({ topic: service.context.topics.aisPositions, key: String(p.mmsi), value: JSON.stringify(p) })));
  const mine = (e: SecurityEvent) => e.metadata.zone_name === ANCHORAGE.name || VESSELS.includes(e.metadata.mmsi as number);
  const readEvents = async (enough: (events: SecurityEvent[]) => boolean, quietMs = 0) => {
    const decode = (records: { topic: string; value: string | Buffer }[]) => records.map((r) => valueOf(r) as SecurityEvent).filter(mine);
    return decode(await consumeUntil(service.context.topics.securityEvents, (seen) => enough(decode(seen)), { timeoutMs: 30_000, quietMs }));
  };

  it('raises occupancy_exceeded once when the window opens, with the vessels already inside', async () => {
    const zone = await call(url('/maritime/zones'), writer, { method: 'POST', json: ANCHORAGE });
    expect(zone.status, JSON.stringify(zone.json)).toBe(201);
    const rules = await call(url(`/maritime/zones/${zone.json.data.id}/rules`), writer, {
      method: 'PUT',
      json: { time_rules: { schedules: [{ name: 'pilot change', days: WEEK, hours: '09:00-10:00', max_vessels: 2, alert_level: 'high' }] } },
    });
    expect(rules.status, JSON.stringify(rules.json)).toBe(200);
    await new Promise((r) => setTimeout(r, 2_000));

    // Three vessels anchor before the window: over its limit, but no window is in force.
    await send(VESSELS.flatMap((mmsi, i) => ['08:30', '08:40', '08:50'].map((t) => position(mmsi, at(t), 14.3 + i * 0.001, 54.7, 0.1))));
    const entered = await readEvents((seen) => seen.filter((e) => e.type === 'zone_entry').length >= 3);
    expect(entered.filter((e) => e.type === 'zone_entry')).toHaveLength(3);
    expect(entered.filter((e) => e.type === 'occupancy_exceeded')).toEqual([]);

    // Nobody enters or leaves; a report inside at 09:05 moves event time into the window.
    await send([position(VESSELS[0]!, at('09:05'), 14.3, 54.7, 0.1)]);
    await readEvents((seen) => seen.some((e) => e.type === 'occupancy_exceeded'));
    // Still exceeded a minute later: no second alert.
    await send([position(VESSELS[1]!, at('09:06'), 14.301, 54.7, 0.1)]);
    const events = await readEvents((seen) => seen.some((e) => e.type === 'occupancy_exceeded'), 3_000);
    const alerts = events.filter((e) => e.type === 'occupancy_exceeded');
    expect(alerts.map((e) => [e.timestamp, e.severity, e.metadata.occupancy, e.metadata.max_vessels, e.metadata.schedule])).toEqual([
      [at('09:05').toISOString(), 'high', 3, 2, 'pilot change'],
    ]);
  });

  it('counts the vessels already inside when a time rule is added, at their next report', async () => {
    const moored = [219_002_311, 219_002_312, 219_002_313];
    const berths = { ...ANCHORAGE, name: `Inner berths ${unique('window')}`, geometry: { type: 'Circle', center: [14.5, 54.75], radius_meters: 1500 } };
    const zone = await call(url('/maritime/zones'), writer, { method: 'POST', json: berths });
    expect(zone.status, JSON.stringify(zone.json)).toBe(201);
    const ours = (e: SecurityEvent) => e.metadata.zone_name === berths.name;
    const read = async (enough: (events: SecurityEvent[]) => boolean, quietMs = 0) => {
      const decode = (records: { topic: string; value: string | Buffer }[]) => records.map((r) => valueOf(r) as SecurityEvent).filter(ours);
      return decode(await consumeUntil(service.context.topics.securityEvents, (seen) => enough(decode(seen)), { timeoutMs: 30_000, quietMs }));
    };

    // Three vessels moor while the zone has no time rule.
    await send(moored.map((mmsi, i) => position(mmsi, at('11:00'), 14.5 + i * 0.001, 54.75, 0.1)));
    await read((seen) => seen.filter((e) => e.type === 'zone_entry').length >= 3);

    // A rule of at most 2 vessels, in force all week, added while they are inside.
    const rules = await call(url(`/maritime/zones/${zone.json.data.id}/rules`), writer, {
      method: 'PUT',
      json: { time_rules: { schedules: [{ name: 'berth capacity', days: WEEK, max_vessels: 2, alert_level: 'medium' }] } },
    });
    expect(rules.status, JSON.stringify(rules.json)).toBe(200);
    await new Promise((r) => setTimeout(r, 2_000));

    // Nobody enters or leaves; each reports again from its berth. The third report makes three.
    await send(moored.map((mmsi, i) => position(mmsi, at(`11:1${i}`), 14.5 + i * 0.001, 54.75, 0.1)));
    const events = await read((seen) => seen.some((e) => e.type === 'occupancy_exceeded'), 3_000);
    const alerts = events.filter((e) => e.type === 'occupancy_exceeded');
    expect(alerts.map((e) => [e.timestamp, e.metadata.occupancy, e.metadata.max_vessels, e.metadata.schedule])).toEqual([
      [at('11:12').toISOString(), 3, 2, 'berth capacity'],
    ]);
  });
});
