// An operator's abort and the drone's telemetry touch the same two rows (the mission and the drone). They
// must take them in one order, or each holds one and waits for the other: Postgres ends the deadlock by
// failing one of them, and when that was the abort the API answered 500 (seen in a browser test, where the
// fleet simulator reports every second while the test aborts). Here the two are lined up deterministically:
// a third transaction holds the abort's command row so the abort stops after locking the mission, the
// telemetry then starts, and the holder lets go.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMission, writeTelemetry } from '../../../drones/mission-store.ts';
import { abortMission, applyReport, missionIdOf, requestMission, type MissionSettings } from '../../../drones/missions.ts';
import { applyTelemetry } from '../../../drones/telemetry.ts';
import { createPool, inTransaction, type Pool } from '../../../platform/postgres.ts';
import { scratchDatabase, type ScratchDatabase } from '../../support/scratch-database.ts';
import { testLog } from '../../support/stack.ts';

const S: MissionSettings = { launchBatteryPercent: 60, lowBatteryPercent: 25, telemetryIntervalMs: 1_000, lostLinkIntervals: 5, cruiseSpeedMps: 10, enduranceMinutes: 30, ackTimeoutMs: 15_000, requestTimeoutMs: 600_000 };
const TARGET = { type: 'Point' as const, coordinates: [12.61, 55.70] };

describe('abort and telemetry of the same flying mission at once', () => {
  let db: ScratchDatabase;
  let pool: Pool;
  const tx = <T>(fn: Parameters<typeof inTransaction<T>>[1]) => inTransaction(pool, fn);
  /** How many backends of this database wait for a lock. */
  const waiting = async () =>
    (await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`)).rows[0]!.n;

  beforeAll(async () => {
    db = await scratchDatabase('drones-lock-order');
    pool = createPool(db.url, 6, testLog);
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  it('both commit: the mission ends aborted, the drone is free and its position is stored', async () => {
    const now = new Date();
    await tx((c) => writeTelemetry(c, [{ id: 'lo1', dock_id: 'dock-lo1', state: 'docked', battery_percent: 100, lon: 12.60, lat: 55.70, altitude_m: 0, link: 'up', speed_mps: 0, last_seen: now.toISOString(), low_battery: null }]));
    const { mission } = await tx((c) => requestMission(c, {
      id: missionIdOf('lock-order'), kind: 'inspect', target: TARGET, subject: 'zone:lock-order', incident_id: 'inc_lock_order', event_id: null, action_id: null, priority: 'automatic', mmsi: null, requested_by: 'test', idempotency_key: null,
    }, S, now));
    expect(mission.drone_id).toBe('lo1');
    for (const body of [{ type: 'ack', command_id: `cmd_${mission.id}_launch_1`, result: 'accepted' }, { type: 'progress', status: 'launched' }]) {
      await tx((c) => applyReport(c, { drone_id: 'lo1', mission_id: mission.id, at: now.toISOString(), ...body } as Parameters<typeof applyReport>[1], S, now));
    }
    expect((await readMission(pool, mission.id))?.status).toBe('launched');

    // The holder: the abort's command row, written and not yet committed, so the abort waits after locking the mission.
    const holder = await pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`INSERT INTO drone_command_outbox (command_id, drone_id, mission_id, command) VALUES ($1, 'lo1', $2, '{}')`, [`cmd_${mission.id}_abort`, mission.id]);
      const aborted = tx((c) => abortMission(c, mission.id, 'manual', 'operator', new Date()));
      await expect.poll(() => waiting(), { timeout: 10_000 }).toBe(1);
      const at = new Date(Date.now() + 1_000);
      const telemetry = tx((c) => applyTelemetry(c, [{ drone_id: 'lo1', dock_id: 'dock-lo1', at: at.toISOString(), position: { lon: 12.605, lat: 55.70 }, altitude_m: 60, battery_percent: 90, mode: 'flying', link: 'up', speed_mps: 10 }], S, at));
      await expect.poll(() => waiting(), { timeout: 10_000 }).toBe(2);
      await holder.query('ROLLBACK');
      const [a, t] = await Promise.allSettled([aborted, telemetry]);
      expect(a.status === 'rejected' ? String(a.reason) : 'committed', 'the abort').toBe('committed');
      expect(t.status === 'rejected' ? String(t.reason) : 'committed', 'the telemetry').toBe('committed');
    } finally {
      holder.release();
    }
    expect((await readMission(pool, mission.id))?.status).toBe('aborted');
    const stored = (await pool.query<{ mission_id: string | null; lon: number }>(`SELECT mission_id, lon FROM drones WHERE id = 'lo1'`)).rows[0];
    expect(stored).toEqual({ mission_id: null, lon: 12.605 });
  });
});
