// Issue 24 "Done means": a SIGKILL of the instance running the drones role duplicates no command and no
// event. The drones role runs in a child `pss start --roles processors`; this process is the api instance
// (missions are created through POST /v1/drones/missions) and runs the fleet simulator. Three missions are
// launched, the child is killed while they fly (their telemetry and reports keep arriving on the topics,
// unread), and a second child takes over from the committed offsets: each mission is completed with each of
// its events once, each command was written once, and the simulator executed each command id once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../api/auth/api-keys.ts';
import { FEATURES } from '../../app/features.ts';
import { startService, type RunningService } from '../../app/service.ts';
import { readMission } from '../../drones/mission-store.ts';
import { FleetSimulator } from '../../drones/simulator/fleet-simulator.ts';
import { runSimulator, type RunningSimulator } from '../../drones/simulator/simulator-runner.ts';
import { KafkaProducer } from '../../platform/kafka/index.ts';
import type { DroneCommand } from '../../schemas/drone.ts';
import { startChildService, type ChildService } from '../support/child-service.ts';
import { valueOf } from '../support/codec.ts';
import { call } from '../support/service.ts';
import { consumeUntil, testConfig, testKafka, testLog, unique } from '../support/stack.ts';

const tag = unique('drone-crash');
// Off Gotland, away from the other tests' places.
const DOCKS = [{ id: `${tag}-a`, lon: 18.700, lat: 57.600 }, { id: `${tag}-b`, lon: 18.710, lat: 57.600 }, { id: `${tag}-c`, lon: 18.720, lat: 57.600 }];
// Telemetry every second; a link is lost only after 30 s, longer than the takeover.
const DRONE_ENV = { PSS_DRONE_TELEMETRY_INTERVAL_MS: '1000', PSS_DRONE_LOST_LINK_INTERVALS: '30' };

describe('a SIGKILL of the drones instance', () => {
  let service: RunningService;
  let running: RunningSimulator;
  let first: ChildService | undefined;
  let second: ChildService | undefined;
  let admin: string;
  const producer = new KafkaProducer(testKafka());
  const executed: string[] = [];

  beforeAll(async () => {
    service = await startService(testConfig({ ...DRONE_ENV, PSS_RATE_LIMIT_BURST: '10000' }), ['api'], testLog, FEATURES);
    admin = (await createApiKey(service.context.pool, service.context.config.environment, { name: 'drone-crash', scopes: ['drones:read', 'drones:write'] }, 'test')).key;
    // Drones fly at 50 m/s, about 400 m out, 6 s on station: each mission takes about 20 s.
    const sim = new FleetSimulator({ docks: DOCKS, dronePrefix: 'drone-', speedMps: 50, telemetryHz: 1, drainPerMinute: 5, stationSeconds: 6 }, Date.now());
    const command = sim.command.bind(sim);
    // Every command the simulator executed (a repeat of an id is answered, not executed: not counted).
    const seen = new Set<string>();
    sim.command = (cmd, now) => {
      if (!seen.has(cmd.command_id) && sim.droneIds.includes(cmd.drone_id)) executed.push(cmd.command_id);
      seen.add(cmd.command_id);
      return command(cmd, now);
    };
    const { kafka, topics, codec, config } = service.context;
    running = await runSimulator({ kafka: { ...kafka, clientId: 'drone-crash-sim' }, producer, codec, topics, topicPrefix: config.topicPrefix, log: testLog }, sim);
    first = await startChildService(service.context.config, 'processors', DRONE_ENV);
  });
  afterAll(async () => {
    await first?.kill();
    await second?.kill();
    await running?.stop();
    await producer.close();
    await service?.stop();
  });

  it('the missions complete, each command written and executed once, each event once', async () => {
    const { pool } = service.context;
    const fleetUp = async () => (await call(`${service.url}/v1/drones`, admin)).json.data.filter((d: { id: string; link: string }) => DOCKS.some((k) => d.id === `drone-${k.id}`) && d.link === 'up').length === DOCKS.length;
    for (let i = 0; i < 300 && !(await fleetUp()); i++) await new Promise((r) => setTimeout(r, 100));
    const ids: string[] = [];
    for (let i = 0; i < DOCKS.length; i++) {
      const res = await call(`${service.url}/v1/drones/missions`, admin, { method: 'POST', json: { kind: 'inspect', target: { type: 'Point', coordinates: [18.71, 57.603 + i * 0.0005] }, subject: `${tag}-${i}` } });
      expect(res.status, res.text).toBe(201);
      expect(res.json.data.drone_id).not.toBeNull();
      ids.push(res.json.data.id);
    }
    const statuses = async () => Promise.all(ids.map(async (id) => (await readMission(pool, id))?.status));
    for (let i = 0; i < 300 && !(await statuses()).every((s) => s === 'launched' || s === 'on_station'); i++) await new Promise((r) => setTimeout(r, 100));
    expect(await statuses()).toEqual(ids.map(() => expect.stringMatching(/^(launched|on_station)$/)));

    await first?.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 3_000));
    second = await startChildService(service.context.config, 'processors', DRONE_ENV);
    for (let i = 0; i < 900 && !(await statuses()).every((s) => s === 'completed'); i++) await new Promise((r) => setTimeout(r, 100));
    expect(await statuses()).toEqual(ids.map(() => 'completed'));

    const { rows: events } = await pool.query<{ mission: string; type: string; n: number }>(
      `SELECT body->'metadata'->>'mission_id' AS mission, type, count(*)::int AS n FROM security_events WHERE source_module = 'drones' AND body->'metadata'->>'mission_id' = ANY($1::text[]) GROUP BY 1, 2`, [ids]);
    for (const id of ids) {
      expect(Object.fromEntries(events.filter((e) => e.mission === id).map((e) => [e.type, e.n]))).toEqual({ mission_launched: 1, evidence_captured: 1, mission_completed: 1 });
      const mission = await readMission(pool, id);
      expect(mission?.timeline.filter((e) => e.entry === 'status').map((e) => e.to)).toEqual(['requested', 'accepted', 'launched', 'on_station', 'returning', 'completed']);
      expect(mission?.contradictions).toBe(0);
    }
    const { rows: outbox } = await pool.query<{ command_id: string }>('SELECT command_id FROM drone_command_outbox WHERE mission_id = ANY($1::text[])', [ids]);
    expect(outbox.map((c) => c.command_id).sort()).toEqual(ids.map((id) => `cmd_${id}_launch_1`).sort());
    // On the topic a command may be there twice (sent, then the sender died before marking it): the same id, executed once.
    const onTopic = (await consumeUntil(service.context.topics.droneCommands, (r) => r.length > 0, { quietMs: 1_000, commitOffsets: false })).map((r) => valueOf(r) as DroneCommand).filter((c) => ids.includes(c.mission_id));
    expect([...new Set(onTopic.map((c) => c.command_id))].sort()).toEqual(outbox.map((c) => c.command_id).sort());
    expect(executed.filter((id) => ids.some((m) => id.includes(m))).sort()).toEqual(outbox.map((c) => c.command_id).sort());
  }, 180_000);
});
