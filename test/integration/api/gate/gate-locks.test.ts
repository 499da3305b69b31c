// Whole-gate locks and their release (issue 34) on the real Postgres and Kafka: a lock made by the response
// loop shows in GET /v1/gates/locks with its incident; POST /v1/gates/{gate}/release sends one release
// command to gate.commands, audited (who, why, credential); a second release is 409; and a lock racing a
// release ends in the state of whichever committed last, which is also the last command the lane gets.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authFeature, gateFeature } from '../../../../app/features.ts';
import { storeEvents } from '../../../../events/store.ts';
import { inTransaction } from '../../../../platform/postgres.ts';
import { topicSpecs } from '../../../../platform/topics.ts';
import { releaseGateLock } from '../../../../processors/gate/gate-locks.ts';
import { lockGateEffect } from '../../../../response/executors/lock-gate.ts';
import { planEvents, planInLanes, type PlanningSnapshot } from '../../../../response/planning.ts';
import type { SecurityEvent } from '../../../../schemas/event.ts';
import { DEFAULT_SYSTEM_CONFIG, type SystemConfig } from '../../../../schemas/system-config.ts';
import { valueOf } from '../../../support/codec.ts';
import { call, startTestService, type TestService } from '../../../support/service.ts';
import { consumeUntil, testConfig, unique, withAdmin } from '../../../support/stack.ts';

const PSS = fileURLToPath(new URL('../../../../bin/pss.js', import.meta.url));

const ZONE = 'Ammunition quay';

describe('gate locks and their release', () => {
  const prefix = `${unique('gatelocks')}.`;
  const gate = `${prefix}G1`;
  const config: SystemConfig = { ...DEFAULT_SYSTEM_CONFIG, gates: [{ id: gate, name: 'North gate' }] };
  const snapshot = (): PlanningSnapshot => ({ config, alertRules: new Map([[ZONE, { on_entry: { alert_level: 'high', actions: [{ action: 'lock_gates', gates: [gate] }] } }]]) });
  const firstAttempts = { lock_gate: lockGateEffect({ config: () => config }) };
  let svc: TestService;
  let reader: string;
  let writer: string;
  let n = 0;

  /** A zone entry whose alert rule locks the gate, planned by the response loop (its lock is a first attempt). */
  const lockByEvent = async (): Promise<string> => {
    const id = `${prefix}evt_${++n}`;
    const event = {
      id, type: 'zone_entry', timestamp: new Date().toISOString(), category: 'maritime', severity: 'high', source_module: 'maritime.zones', source_device: 'ais',
      title: `Vessel entered ${ZONE}`, description: 'test', location: { lat: 55.7, lng: 12.6, zone: ZONE }, metadata: { mmsi: 219_000_000 + n, zone_type: 'restricted' },
      requires_action: false, assigned_to: '', incident_id: null,
    } as SecurityEvent;
    await inTransaction(svc.context.pool, (c) => storeEvents(c, [event]));
    await planInLanes(svc.context.pool, [event], snapshot(), new Date(), 1, firstAttempts);
    return id;
  };
  /** The same, with the lock's transaction left open for the caller to commit. */
  const lockOpen = async () => {
    const id = `${prefix}evt_${++n}`;
    const event = {
      id, type: 'zone_entry', timestamp: new Date().toISOString(), category: 'maritime', severity: 'high', source_module: 'maritime.zones', source_device: 'ais',
      title: `Vessel entered ${ZONE}`, description: 'test', location: { lat: 55.7, lng: 12.6, zone: ZONE }, metadata: { mmsi: 219_000_000 + n, zone_type: 'restricted' },
      requires_action: false, assigned_to: '', incident_id: null,
    } as SecurityEvent;
    await inTransaction(svc.context.pool, (c) => storeEvents(c, [event]));
    const client = await svc.context.pool.connect();
    await client.query('BEGIN');
    await planEvents(client, [event], snapshot(), new Date(), firstAttempts);
    return { commit: async () => { await client.query('COMMIT'); client.release(); } };
  };
  const lockOf = async () => ((await call(`${svc.url}/v1/gates/locks`, reader)).json.data as { gate_id: string }[]).find((l) => l.gate_id === gate) as Record<string, unknown> | undefined;
  const release = (reason: string, key = writer) => call(`${svc.url}/v1/gates/${encodeURIComponent(gate)}/release`, key, { method: 'POST', json: { reason } });

  beforeAll(async () => {
    svc = await startTestService({ PSS_TOPIC_PREFIX: prefix }, [authFeature, gateFeature]);
    reader = (await svc.key(['transactions:read'])).key;
    writer = (await svc.key(['transactions:write', 'transactions:read'])).key;
  });
  afterAll(async () => {
    await svc?.stop();
    await withAdmin((a) => a.deleteTopics(topicSpecs(prefix).map((t) => t.name))).catch(() => undefined);
  });

  it('lists a lock with the incident that made it, and refuses a release of a gate never locked (404)', async () => {
    expect(await lockOf()).toBeUndefined();
    expect((await release('Threat cleared by the duty officer')).status).toBe(404);
    await lockByEvent();
    const lock = await lockOf();
    expect(lock).toMatchObject({ gate_id: gate, locked: true, released_at: null, released_by: null });
    expect(lock?.incident_id).toMatch(/^inc_/);
    expect(String(lock?.lock_command_id)).toMatch(/^cmd_lock_/);
  });

  it('releases: unlocked in the list, one release command on gate.commands, audited; a second release is 409', async () => {
    const before = await lockOf();
    const res = await release('  Threat cleared by the duty officer  ');
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.data).toMatchObject({ gate_id: gate, locked: false, released_by: 'test-transactions:write+transactions:read', release_reason: 'Threat cleared by the duty officer', command_sent: true });
    const releaseId = res.json.data.release_command_id as string;
    expect(await lockOf()).toMatchObject({ locked: false, release_command_id: releaseId, locked_at: before?.locked_at });

    const again = await release('Threat cleared by the duty officer');
    expect(again.status).toBe(409);
    expect(again.json.error).toMatchObject({ code: 'resource_conflict', details: { gate_id: gate, locked: false } });

    const commands = (await consumeUntil(svc.context.topics.gateCommands, (rs) => rs.some((r) => (valueOf(r) as { command_id: string }).command_id === releaseId), { quietMs: 500 })).map((r) => valueOf(r) as Record<string, unknown>);
    const releases = commands.filter((c) => c.action === 'release');
    expect(releases).toHaveLength(1);
    expect(releases[0]).toMatchObject({
      command_id: releaseId, gate, lane: '*', origin: 'release', issued_by: 'test-transactions:write+transactions:read', reason: 'Threat cleared by the duty officer',
      cause: { lock_command_id: before?.lock_command_id, incident_id: before?.incident_id },
    });
    // The lock went out ahead of its release, on the gate's key.
    expect(commands.map((c) => c.command_id)).toEqual([before?.lock_command_id, releaseId]);

    const { rows } = await svc.context.pool.query(`SELECT released_by, reason, credential_id, lock_command_id FROM gate_lock_releases WHERE command_id = $1`, [releaseId]);
    expect(rows).toEqual([{ released_by: 'test-transactions:write+transactions:read', reason: 'Threat cleared by the duty officer', credential_id: expect.stringMatching(/.+/), lock_command_id: before?.lock_command_id }]);
    await expect(svc.context.pool.query(`DELETE FROM gate_lock_releases WHERE command_id = $1`, [releaseId])).rejects.toThrow(/append-only/);
  });

  it('refuses a short reason (422), a reader (403) and no credential (401)', async () => {
    await lockByEvent();
    expect((await release('too short')).status).toBe(422);
    expect((await release('          x         ')).status).toBe(422);
    expect((await release('Threat cleared by the duty officer', reader)).status).toBe(403);
    expect((await call(`${svc.url}/v1/gates/${gate}/release`, undefined, { method: 'POST', json: { reason: 'Threat cleared by the duty officer' } })).status).toBe(401);
    expect(await lockOf()).toMatchObject({ locked: true });
  });

  it('a release made while a new lock is being written waits for it, then lifts that lock: the lane gets lock, then release', async () => {
    if ((await lockOf())?.locked !== true) await lockByEvent();
    const open = await lockOpen();
    let settled = false;
    const released = releaseGateLock(svc.context.pool, { gate, reason: 'Released while a lock was written', releasedBy: 'op-wait', credentialId: 'test' }).finally(() => (settled = true));
    await new Promise((r) => setTimeout(r, 300));
    expect(settled).toBe(false); // waiting for the gate's row, held by the lock's transaction
    await open.commit();
    const { command } = await released;
    const { rows } = await svc.context.pool.query<{ command_id: string; action: string }>(`SELECT command_id, command->>'action' AS action FROM gate_command_outbox WHERE gate_id = $1 ORDER BY seq DESC LIMIT 2`, [gate]);
    expect(rows.map((r) => r.action)).toEqual(['release', 'lock']);
    expect(command.cause?.lock_command_id).toBe(rows[1]?.command_id);
    expect(await lockOf()).toMatchObject({ locked: false, release_command_id: command.command_id });
  });

  it('a lock racing a release ends as the one that committed last, which is also the gate\'s last command', async () => {
    for (let round = 0; round < 6; round++) {
      if ((await lockOf())?.locked !== true) await lockByEvent();
      const outcome = await Promise.allSettled([
        releaseGateLock(svc.context.pool, { gate, reason: `Race round ${round} release`, releasedBy: 'op-race', credentialId: 'test' }),
        lockByEvent(),
      ]);
      expect(outcome[1].status).toBe('fulfilled');
      const { rows: last } = await svc.context.pool.query<{ action: string }>(`SELECT command->>'action' AS action FROM gate_command_outbox WHERE gate_id = $1 ORDER BY seq DESC LIMIT 1`, [gate]);
      const state = await lockOf();
      expect(last[0]?.action).toBe(state?.locked === true ? 'lock' : 'release');
    }
  });

  it('pss gates locks and pss gates release do the same from the database', async () => {
    const pss = (args: string[]) => spawnSync(process.execPath, [PSS, 'gates', ...args], {
      env: { ...process.env, PSS_DATABASE_URL: testConfig().databaseUrl, PSS_ENVIRONMENT: 'test', PSS_LOG_LEVEL: 'warn' }, encoding: 'utf8', timeout: 60_000,
    });
    if ((await lockOf())?.locked !== true) await lockByEvent();
    const listed = pss(['locks']);
    expect(listed.status, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as { gate_id: string; locked: boolean }[]).find((l) => l.gate_id === gate)).toMatchObject({ locked: true });
    expect(pss(['release', gate, '--reason', 'short']).status).toBe(2);
    expect(pss(['release']).status).toBe(2);
    const released = pss(['release', gate, '--reason', 'Cleared on the radio by the harbour master', '--by', 'harbour.master']);
    expect(released.status, released.stderr).toBe(0);
    expect(JSON.parse(released.stdout)).toMatchObject({ gate_id: gate, locked: false, released_by: 'harbour.master', release_reason: 'Cleared on the radio by the harbour master' });
    const again = pss(['release', gate, '--reason', 'Cleared on the radio by the harbour master']);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain(`Gate ${gate} is not locked`);
    const { rows } = await svc.context.pool.query(`SELECT origin, command->>'issued_by' AS by FROM gate_command_outbox WHERE command_id = $1`, [JSON.parse(released.stdout).release_command_id]);
    expect(rows).toEqual([{ origin: 'release', by: 'harbour.master' }]);
  });
});
