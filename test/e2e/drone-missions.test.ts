// Issue 24 "Done means", end to end on the real broker and PostGIS with the fleet simulator on the fleet
// contract: a vessel entering a critical zone yields exactly one mission and one launch command, flown through
// accepted, launched, on_station, evidence and completed, each event once, the triggering event marked; a
// low-battery fault gives drone_low_battery and partially_completed; an abort through the API sends the abort
// command and raises mission_aborted; no answer times out (the monitor at a moved instant) and escalates; a
// silent drone raises drone_lost_link once; bad fleet records are dead-lettered; replaying the topics
// duplicates no command and no event.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FEATURES } from '../../app/features.ts';
import { startService, type RunningService } from '../../app/service.ts';
import { createApiKey } from '../../api/auth/api-keys.ts';
import { applyBatch, sortRecords } from '../../drones/fleet-intake.ts';
import { readMission, type Mission } from '../../drones/mission-store.ts';
import { sweepFleet } from '../../drones/role.ts';
import { fleetSettings } from '../../drones/settings.ts';
import { FleetSimulator } from '../../drones/simulator/fleet-simulator.ts';
import { runSimulator, type RunningSimulator } from '../../drones/simulator/simulator-runner.ts';
import { readEvent } from '../../events/queries.ts';
import { KafkaProducer, type InRecord } from '../../platform/kafka/index.ts';
import { inTransaction } from '../../platform/postgres.ts';
import { escalateUnanswered } from '../../response/executors/dispatch-drone.ts';
import type { DeadLetter } from '../../schemas/dead-letter.ts';
import type { DroneCommand } from '../../schemas/drone.ts';
import { DEFAULT_SYSTEM_CONFIG } from '../../schemas/system-config.ts';
import { valueOf } from '../support/codec.ts';
import { call } from '../support/service.ts';
import { scratchDatabase, type ScratchDatabase } from '../support/scratch-database.ts';
import { consumeUntil, testConfig, testKafka, testLog, unique } from '../support/stack.ts';
import { track } from '../support/tracks.ts';

const tag = unique('drones');
const MMSI = 230_000_000 + Math.floor(Math.random() * 900_000);
const T0 = new Date(Date.now() - 30 * 60_000);
// South of Finland, away from every other test's zones; docks a few hundred metres around the zone.
const ZONE = { name: `Drone quay ${tag}`, type: 'restricted', alert_level: 'critical', geometry: { type: 'Polygon', coordinates: [[[21.300, 59.800], [21.310, 59.800], [21.310, 59.806], [21.300, 59.806], [21.300, 59.800]]] } };
// Five: a drone that came home low stays below the launch level for the rest of the file, one is lost.
const DOCKS = [{ id: `${tag}-a`, lon: 21.300, lat: 59.798 }, { id: `${tag}-b`, lon: 21.312, lat: 59.798 }, { id: `${tag}-c`, lon: 21.306, lat: 59.809 }, { id: `${tag}-d`, lon: 21.296, lat: 59.803 }, { id: `${tag}-e`, lon: 21.314, lat: 59.803 }];
const CONFIG = { PSS_DRONE_TELEMETRY_INTERVAL_MS: '1000', PSS_DRONE_LOST_LINK_INTERVALS: '5', PSS_DRONE_ACK_TIMEOUT_MS: '20000', PSS_RATE_LIMIT_BURST: '10000' };

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('drone missions end to end', () => {
  let db: ScratchDatabase | undefined;
  let service: RunningService;
  let sim: FleetSimulator;
  let running: RunningSimulator;
  let admin: string;
  let zoneId: string;
  const producer = new KafkaProducer(testKafka());
  const url = (path: string) => `${service.url}/v1${path}`;
  const settings = () => fleetSettings(service.context.config);
  const escalate = escalateUnanswered(() => DEFAULT_SYSTEM_CONFIG);

  /** The drone events of a mission by type, as stored. */
  async function missionEvents(missionId: string): Promise<Record<string, number>> {
    const { rows } = await service.context.pool.query<{ type: string; n: string }>(`SELECT type, count(*) AS n FROM security_events WHERE source_module = 'drones' AND body->'metadata'->>'mission_id' = $1 GROUP BY type`, [missionId]);
    return Object.fromEntries(rows.map((r) => [r.type, Number(r.n)]));
  }
  async function missionOfEvent(eventId: string): Promise<Mission> {
    return until(`the mission of ${eventId}`, async () => {
      const { rows } = await service.context.pool.query<{ id: string }>('SELECT id FROM drone_missions WHERE event_id = $1', [eventId]);
      return rows[0] === undefined ? undefined : readMission(service.context.pool, rows[0].id);
    });
  }
  async function missionIn(id: string, statuses: string[], timeoutMs = 45_000): Promise<Mission> {
    let last: Mission | undefined;
    return until(`mission ${id} in ${statuses.join('/')}`, async () => {
      last = await readMission(service.context.pool, id);
      return last !== undefined && statuses.includes(last.status) ? last : undefined;
    }, timeoutMs).catch(async (err: Error) => {
      throw new Error(`${err.message}: ${JSON.stringify(last)}; fleet ${JSON.stringify((await call(url('/drones'), admin)).json.data)}`);
    });
  }
  async function commandsOf(missionId: string, done: (c: DroneCommand[]) => boolean): Promise<DroneCommand[]> {
    const mine = (records: InRecord[]) => records.map((r) => valueOf(r) as DroneCommand).filter((c) => c.mission_id === missionId);
    return mine(await consumeUntil(service.context.topics.droneCommands, (records) => done(mine(records)), { timeoutMs: 30_000 }));
  }
  /** A perimeter breach beside the zone (high: the level's default dispatches a drone). */
  async function breach(n: number): Promise<string> {
    const res = await call(url('/events'), admin, { method: 'POST', json: { type: 'perimeter_breach', source_module: `perimeter.${tag}`, source_device: `fence-${n}`, title: `Fence ${n} breached`, location: { lat: 59.801 + n * 0.0005, lng: 21.304 } } });
    expect(res.status, res.text).toBe(201);
    return res.json.data.id;
  }

  beforeAll(async () => {
    // A database and topics of its own: the file ends with missions in flight and drones that stop
    // reporting, and its lost-link sweeps run on a moved clock; in the shared database a later file's
    // service would sweep those drones and publish what this file stored (exact counts there would trip).
    db = await scratchDatabase('drones');
    service = await startService(testConfig({ ...CONFIG, PSS_DATABASE_URL: db.url, PSS_TOPIC_PREFIX: `${tag}.` }), ['api', 'processors'], testLog, FEATURES);
    const { pool, config } = service.context;
    admin = (await createApiKey(pool, config.environment, { name: 'drones-admin', scopes: ['maritime:write', 'maritime:read', 'events:read', 'events:write', 'drones:read', 'drones:write', 'ingest:write'] }, 'test')).key;
    const zone = await call(url('/maritime/zones'), admin, { method: 'POST', json: ZONE });
    expect(zone.status, zone.text).toBe(201);
    zoneId = zone.json.data.id;
    const rules = await call(url(`/maritime/zones/${zoneId}/rules`), admin, { method: 'PUT', json: { alert_rules: { on_entry: { alert_level: 'critical', actions: [{ action: 'dispatch_drone', mission: 'inspect' }] } } } });
    expect(rules.status, rules.text).toBe(200);
    sim = new FleetSimulator({ docks: DOCKS, dronePrefix: 'drone-', speedMps: 100, telemetryHz: 1, drainPerMinute: 30, stationSeconds: 2 }, Date.now());
    const { kafka, topics, codec } = service.context;
    running = await runSimulator({ kafka: { ...kafka, clientId: 'drone-sim' }, producer, codec, topics, topicPrefix: config.topicPrefix, log: testLog }, sim);
    // Every drone has reported before the first alert.
    await until('the fleet', async () => {
      const res = await call(url('/drones'), admin);
      return res.json.data.filter((d: { id: string; link: string }) => sim.droneIds.includes(d.id) && d.link === 'up').length === DOCKS.length;
    }, 30_000);
    await new Promise((r) => setTimeout(r, 1_500)); // the zone processor reloads the zone's rules on NOTIFY
  });
  afterAll(async () => {
    await running?.stop();
    await producer.close();
    if (zoneId) await call(url(`/maritime/zones/${zoneId}`), admin, { method: 'DELETE' });
    await service?.stop();
    await db?.drop();
  });

  let first: Mission;

  it('a vessel entering the critical zone: one mission, one launch command, accepted -> launched -> on_station -> evidence -> completed, each event once', async () => {
    const positions = track(MMSI, T0, [{ minute: 0, lon: 21.295, lat: 59.803 }, { minute: 2, lon: 21.305, lat: 59.803 }, { minute: 4, lon: 21.305, lat: 59.803 }], 30);
    await producer.send(positions.map((p) => ({ topic: service.context.topics.aisPositions, key: String(p.mmsi), value: JSON.stringify(p) })));
    const entry = await until('the zone entry', async () => {
      const { rows } = await service.context.pool.query<{ id: string }>(`SELECT id FROM security_events WHERE type = 'zone_entry' AND (body->'metadata'->>'mmsi')::int = $1`, [MMSI]);
      return rows[0]?.id;
    });
    first = await missionOfEvent(entry);
    expect(first).toMatchObject({ kind: 'inspect', subject: `vessel:${MMSI}`, event_id: entry, requested_by: 'response' });
    expect(first.incident_id).not.toBeNull();
    expect(sim.droneIds).toContain(first.drone_id);
    const done = await missionIn(first.id, ['completed']);
    expect(done.timeline.filter((e) => e.entry === 'status').map((e) => e.to)).toEqual(['requested', 'accepted', 'launched', 'on_station', 'returning', 'completed']);
    expect(done.evidence).toHaveLength(1);
    expect(done.contradictions).toBe(0);
    expect(done.launched_at).not.toBeNull();
    await until('the completion event', async () => (await missionEvents(first.id)).mission_completed === 1);
    expect(await missionEvents(first.id)).toEqual({ mission_launched: 1, evidence_captured: 1, mission_completed: 1 });

    const commands = await commandsOf(first.id, (c) => c.length >= 1);
    expect(commands.map((c) => c.type)).toEqual(['launch']);
    expect(commands[0]).toMatchObject({ drone_id: first.drone_id, kind: 'inspect', lost_link_action: 'return_home' });
    // One incident, one mission.
    const missions = await call(url(`/drones/missions?incident_id=${first.incident_id}`), admin);
    expect(missions.status, missions.text).toBe(200);
    expect(missions.json.data.map((m: { id: string }) => m.id)).toEqual([first.id]);
    // The triggering event names its mission.
    expect((await readEvent(service.context.pool, entry))?.metadata).toMatchObject({ drone_dispatched: true, drone_mission_id: first.id });
    const detail = await call(url(`/drones/missions/${first.id}`), admin);
    expect(detail.json.data.timeline.length).toBeGreaterThan(5);
    expect(detail.json.data.evidence[0]).toMatchObject({ media_type: 'photo' });
  });

  it('low battery: drone_low_battery once, the drone told to come home, the mission partially completed', async () => {
    // The drone that flew first is still charging back above the launch level; another takes this one.
    sim.injectFault('low_battery');
    const mission = await missionOfEvent(await breach(1));
    const ended = await missionIn(mission.id, ['partially_completed']);
    expect(ended.reason).toBe('low_battery');
    await until('the events', async () => (await missionEvents(mission.id)).mission_completed === 1);
    expect(await missionEvents(mission.id)).toMatchObject({ mission_launched: 1, drone_low_battery: 1, mission_completed: 1 });
    const commands = await commandsOf(mission.id, (c) => c.some((x) => x.type === 'return_home'));
    expect(commands.map((c) => c.type)).toEqual(['launch', 'return_home']);
  });

  it('abort through the API: the abort command, then mission_aborted', async () => {
    const created = await call(url('/drones/missions'), admin, { method: 'POST', headers: { 'Idempotency-Key': `abort-${tag}` }, json: { kind: 'perimeter_sweep', target: { type: 'Point', coordinates: [21.306, 59.803] } } });
    expect(created.status, created.text).toBe(201);
    const id = created.json.data.id;
    // The same key answers the same mission.
    const again = await call(url('/drones/missions'), admin, { method: 'POST', headers: { 'Idempotency-Key': `abort-${tag}` }, json: { kind: 'perimeter_sweep', target: { type: 'Point', coordinates: [21.306, 59.803] } } });
    expect(again.status, again.text).toBe(200);
    expect(again.json.data.id).toBe(id);
    await missionIn(id, ['launched', 'on_station']);
    const aborted = await call(url(`/drones/missions/${id}/abort`), admin, { method: 'POST', json: { reason: 'weather' } });
    expect(aborted.status, aborted.text).toBe(200);
    expect(aborted.json.data).toMatchObject({ status: 'aborted', reason: 'weather' });
    const commands = await commandsOf(id, (c) => c.some((x) => x.type === 'abort'));
    expect(commands.map((c) => c.type)).toEqual(['launch', 'abort']);
    expect(await missionEvents(id)).toMatchObject({ mission_aborted: 1 });
    const twice = await call(url(`/drones/missions/${id}/abort`), admin, { method: 'POST', json: { reason: 'weather' } });
    expect(twice.status).toBe(409);
  });

  it('no answer: the mission times out at its deadline and its incident escalates', async () => {
    sim.injectFault('no_answer');
    const eventId = await breach(2);
    const mission = await missionOfEvent(eventId);
    expect(mission.drone_id).not.toBeNull();
    const later = new Date(Date.now() + service.context.config.droneAckTimeoutMs + 1_000);
    await sweepFleet(service.context.pool, settings(), later, escalate);
    const ended = await missionIn(mission.id, ['timeout']);
    expect(ended.drone_id).toBe(mission.drone_id);
    expect(await missionEvents(mission.id)).toEqual({ mission_aborted: 1 });
    const { rows } = await service.context.pool.query<{ source: string }>(`SELECT source FROM response_actions WHERE incident_id = $1 AND kind = 'escalate' AND source = 'fleet'`, [mission.incident_id]);
    expect(rows).toHaveLength(1);
  });

  it('a drone that falls silent: drone_lost_link once, raised by our clock', async () => {
    sim.injectFault('lost_link');
    const mission = await missionOfEvent(await breach(3));
    await missionIn(mission.id, ['on_station']);
    const later = new Date(Date.now() + 60_000);
    await sweepFleet(service.context.pool, settings(), later, escalate);
    await sweepFleet(service.context.pool, settings(), new Date(later.getTime() + 5_000), escalate);
    expect(await missionEvents(mission.id)).toMatchObject({ mission_launched: 1, drone_lost_link: 1 });
    const fleet = await call(url('/drones'), admin);
    expect(fleet.json.data.find((d: { id: string }) => d.id === mission.drone_id)).toMatchObject({ mission_id: mission.id });
  });

  it('malformed fleet records go to the dead-letter topic with the reason; the feed goes on', async () => {
    const { topics } = service.context;
    await producer.send([
      { topic: topics.droneReports, key: 'x', value: `{"type":"ack","drone_id":"${tag}"}` },
      { topic: topics.droneTelemetry, key: 'x', value: 'not json' },
    ]);
    const letters = (await consumeUntil(topics.deadLetter, (records) => records.map((r) => valueOf(r) as DeadLetter).filter((l) => l.feed === 'drone' && (l.raw[0] ?? '').includes(tag)).length >= 1 && records.some((r) => (valueOf(r) as DeadLetter).raw[0] === 'not json'), { timeoutMs: 30_000 }))
      .map((r) => valueOf(r) as DeadLetter).filter((l) => l.feed === 'drone' && ((l.raw[0] ?? '').includes(tag) || l.raw[0] === 'not json'));
    expect(letters.map((l) => l.reason).sort()).toEqual(expect.arrayContaining(['drone_record_invalid', 'invalid_json']));
    // HTTP ingest of telemetry: valid accepted, invalid refused with the reason.
    const bad = await call(url('/ingest/drones'), admin, { method: 'POST', json: [{ drone_id: `${tag}-http`, at: new Date().toISOString(), position: { lon: 21.3, lat: 59.8 }, altitude_m: 0, battery_percent: 90, mode: 'docked', link: 'up' }, { drone_id: 'x' }] });
    expect(bad.status, bad.text).toBe(422);
    expect(bad.json.error.details).toMatchObject({ accepted_count: 1, rejected_count: 1 });
    await until('the HTTP drone', async () => (await call(url('/drones'), admin)).json.data.some((d: { id: string }) => d.id === `${tag}-http`), 30_000);
  });

  it('replaying drone.reports and drone.telemetry from the start stores no event and writes no command again', async () => {
    const { pool, topics } = service.context;
    const count = async () => (await pool.query<{ events: string; commands: string }>(`SELECT (SELECT count(*) FROM security_events WHERE source_module = 'drones') AS events, (SELECT count(*) FROM drone_command_outbox) AS commands`)).rows[0];
    const before = await count();
    const reports = await consumeUntil(topics.droneReports, (r) => r.length > 0, { quietMs: 1_000, commitOffsets: false });
    const telemetry = await consumeUntil(topics.droneTelemetry, (r) => r.length > 0, { quietMs: 1_000, commitOffsets: false });
    await running.stop(); // nothing new arrives meanwhile
    const batch = sortRecords(service.context, [...telemetry, ...reports], new Date());
    expect(batch.reports.length).toBeGreaterThan(10);
    await inTransaction(pool, (client) => applyBatch(client, batch, settings(), new Date(), escalate));
    expect(await count()).toEqual(before);
    // On the topic, every command id once.
    const commands = (await consumeUntil(topics.droneCommands, (r) => r.length > 0, { quietMs: 1_000, commitOffsets: false })).map((r) => valueOf(r) as DroneCommand).filter((c) => sim.droneIds.includes(c.drone_id));
    expect(new Set(commands.map((c) => c.command_id)).size).toBe(commands.length);
    expect((await readMission(pool, first.id))?.status).toBe('completed');
  });
});
