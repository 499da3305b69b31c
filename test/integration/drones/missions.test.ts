// Missions against a real Postgres of their own (no Kafka: the outbox is read, not sent): a temporary
// rejection frees the drone and the next sweep launches again under a new command id; a report that
// contradicts the state is counted, not applied; one incident gets one active mission per subject; a mission
// waiting for a drone gets one when it frees up; a track mission follows its vessel with update_target commands.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTelemetry } from '../../../drones/mission-store.ts';
import { readMission } from '../../../drones/mission-store.ts';
import { sweepMissions } from '../../../drones/monitor.ts';
import { applyReport, missionIdOf, requestMission, type MissionSettings } from '../../../drones/missions.ts';
import { createPool, inTransaction, type Pool } from '../../../platform/postgres.ts';
import { scratchDatabase, type ScratchDatabase } from '../../support/scratch-database.ts';
import { testLog } from '../../support/stack.ts';

const S: MissionSettings = { launchBatteryPercent: 60, lowBatteryPercent: 25, telemetryIntervalMs: 1_000, lostLinkIntervals: 5, cruiseSpeedMps: 10, enduranceMinutes: 30, ackTimeoutMs: 15_000, requestTimeoutMs: 600_000 };
const TARGET = { type: 'Point' as const, coordinates: [12.61, 55.70] };

describe('drone missions in Postgres', () => {
  let db: ScratchDatabase;
  let pool: Pool;
  const tx = <T>(fn: Parameters<typeof inTransaction<T>>[1]) => inTransaction(pool, fn);
  const drone = (id: string, at: Date, over: Partial<Parameters<typeof writeTelemetry>[1][number]> = {}) =>
    tx((c) => writeTelemetry(c, [{ id, dock_id: `dock-${id}`, state: 'docked', battery_percent: 100, lon: 12.60, lat: 55.70, altitude_m: 0, link: 'up', speed_mps: 0, last_seen: at.toISOString(), low_battery: null, ...over }]));
  const request = (id: string, now: Date, over: Record<string, unknown> = {}) => tx((c) => requestMission(c, {
    id: missionIdOf(id), kind: 'inspect', target: TARGET, subject: `zone:${id}`, incident_id: `inc_${id}`, event_id: null, action_id: null, priority: 'automatic', mmsi: null, requested_by: 'test', idempotency_key: null, ...over,
  }, S, now));
  const commands = async (missionId: string) => (await pool.query<{ command_id: string; type: string }>(`SELECT command_id, command->>'type' AS type FROM drone_command_outbox WHERE mission_id = $1 ORDER BY seq`, [missionId])).rows;
  const report = (missionId: string, body: Record<string, unknown>, droneId: string, now: Date) =>
    tx((c) => applyReport(c, { drone_id: droneId, mission_id: missionId, at: now.toISOString(), ...body } as Parameters<typeof applyReport>[1], S, now));

  beforeAll(async () => {
    db = await scratchDatabase('drones');
    pool = createPool(db.url, 4, testLog);
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  it('a temporary rejection frees the drone; the next sweep launches again under a new command id', async () => {
    const now = new Date();
    await drone('t1', now);
    const { mission } = await request('temp', now);
    expect(mission.drone_id).toBe('t1');
    await report(mission.id, { type: 'ack', command_id: `cmd_${mission.id}_launch_1`, result: 'temporarily_rejected', reason: 'dock cover' }, 't1', now);
    expect(await readMission(pool, mission.id)).toMatchObject({ status: 'requested', drone_id: null });
    await tx((c) => sweepMissions(c, S, new Date(now.getTime() + 1_000)));
    expect((await commands(mission.id)).map((c) => c.command_id)).toEqual([`cmd_${mission.id}_launch_1`, `cmd_${mission.id}_launch_2`]);
    // The answer to the first launch, seen again, no longer moves the mission.
    await report(mission.id, { type: 'ack', command_id: `cmd_${mission.id}_launch_1`, result: 'accepted' }, 't1', now);
    expect((await readMission(pool, mission.id))?.status).toBe('requested');
    await report(mission.id, { type: 'ack', command_id: `cmd_${mission.id}_launch_2`, result: 'accepted' }, 't1', now);
    expect((await readMission(pool, mission.id))?.status).toBe('accepted');
  });

  it('a report that contradicts the state is recorded and counted, not applied', async () => {
    const now = new Date();
    await drone('c1', now);
    const { mission } = await request('contra', now);
    await report(mission.id, { type: 'ack', command_id: `cmd_${mission.id}_launch_1`, result: 'accepted' }, 'c1', now);
    await report(mission.id, { type: 'progress', status: 'completed' }, 'c1', now);
    const after = await readMission(pool, mission.id);
    expect(after).toMatchObject({ status: 'accepted', contradictions: 1 });
    expect(after?.timeline.at(-1)).toMatchObject({ entry: 'refused', detail: expect.stringContaining('progress completed of a mission that is accepted') });
    // A repeat is neither applied nor counted.
    await report(mission.id, { type: 'ack', command_id: `cmd_${mission.id}_launch_1`, result: 'accepted' }, 'c1', now);
    expect((await readMission(pool, mission.id))?.contradictions).toBe(1);
  });

  it('one incident, one active mission per subject; a waiting mission gets the drone that frees up', async () => {
    const now = new Date();
    // Far from every drone so far: nobody can reach it, it waits.
    const far = { type: 'Point' as const, coordinates: [14.0, 55.70] };
    const first = await request('subject-a', now, { incident_id: 'inc_same', subject: 'vessel:1', target: far });
    const second = await request('subject-b', now, { incident_id: 'inc_same', subject: 'vessel:1', target: far });
    expect(second.created).toBe(false);
    expect(second.mission.id).toBe(first.mission.id);
    expect(first.waiting?.length).toBeGreaterThan(0);
    expect(await readMission(pool, first.mission.id)).toMatchObject({ status: 'requested', drone_id: null });
    await drone('w1', new Date(now.getTime() + 500), { lon: 13.99 });
    await tx((c) => sweepMissions(c, S, new Date(now.getTime() + 1_000)));
    expect((await readMission(pool, first.mission.id))?.drone_id).toBe('w1');
    expect((await commands(first.mission.id)).map((c) => c.type)).toEqual(['launch']);
  });

  it('a track mission follows its vessel: an update_target command once the vessel moved more than 50 m', async () => {
    const now = new Date();
    await drone('v1', now);
    const mmsi = 219_555_001;
    const { mission } = await request('track', now, { kind: 'track', mmsi, subject: `vessel:${mmsi}` });
    expect(mission.drone_id).toBe('v1');
    await report(mission.id, { type: 'ack', command_id: `cmd_${mission.id}_launch_1`, result: 'accepted' }, 'v1', now);
    await report(mission.id, { type: 'progress', status: 'launched' }, 'v1', now);
    await pool.query(`SELECT vessel_positions_create_partition(($1::timestamptz AT TIME ZONE 'UTC')::date)`, [now]);
    const position = async (lon: number, at: Date) => pool.query(
      `INSERT INTO vessel_positions (mmsi, reported_at, source, position, msg_type, received_at) VALUES ($1, $2, 'test', ST_SetSRID(ST_MakePoint($3, 55.70), 4326)::geography, 1, $2)`, [mmsi, at, lon]);
    await position(12.6101, new Date(now.getTime() - 2_000)); // about 6 m from the target: no update
    await tx((c) => sweepMissions(c, S, now));
    expect(await commands(mission.id)).toHaveLength(1);
    await position(12.612, new Date(now.getTime() - 1_000)); // about 125 m on
    await tx((c) => sweepMissions(c, S, now));
    await tx((c) => sweepMissions(c, S, now));
    const sent = await commands(mission.id);
    expect(sent.map((c) => c.type)).toEqual(['launch', 'update_target']);
    expect(sent[1]?.command_id).toBe(`cmd_${mission.id}_target_1`);
    expect((await readMission(pool, mission.id))?.target).toEqual({ type: 'Point', coordinates: [12.612, 55.70] });
  });
});
