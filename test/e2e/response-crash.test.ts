// Issue 23 "Done means": a SIGKILL of the instance executing actions repeats none of them and loses none.
// The response loop runs in a child `pss start --roles processors`; this process is the api instance (the
// configuration API, the webhook dispatcher that delivers escalations to the parties' receivers). Vessels
// enter a critical zone whose rule asks for notify_operator, escalate_to and lock_gates, in three waves:
// before the kill (all done), at the kill (the transactions that record their actions and make their first
// attempts, the locks ahead and the planning lanes, held mid-transaction: this test holds a SHARE lock on
// gate_command_outbox, so their lock command INSERT waits, the fault injected), and while no processors
// instance runs. A second child takes over: what the first had not committed (actions, their effects and
// the consumer offsets alike) is read and planned again, and every action, command, event and delivery
// exists exactly once. (An executor's claim that dies with its instance comes back when its lease ends:
// test/integration/response/action-log.test.ts.)
// A scratch database of its own: the parties' receivers are named in the system configuration, which is
// database-wide, so in the run's shared database any event another file left there and our instances
// answer reaches them too. Seen: drone-missions.test.ts stores a drone_lost_link (high) without waking a
// relay and stops within the relay's 10 s sweep age; our relay's timed sweep then puts it on our topic, our
// loop answers it at the high level's default (escalate to the supervisor) and the supervisor's receiver
// gets a ninth escalation. Correct behaviour of the loop, not of this file's entries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../api/auth/api-keys.ts';
import { FEATURES } from '../../app/features.ts';
import { startService, type RunningService } from '../../app/service.ts';
import { KafkaProducer, type InRecord } from '../../platform/kafka/index.ts';
import type { GateCommand } from '../../schemas/gate-transaction.ts';
import type { Config } from '../../platform/config.ts';
import { DEFAULT_SYSTEM_CONFIG } from '../../schemas/system-config.ts';
import { startChildService, type ChildService } from '../support/child-service.ts';
import { valueOf } from '../support/codec.ts';
import { call } from '../support/service.ts';
import { scratchDatabase, type ScratchDatabase } from '../support/scratch-database.ts';
import { changeSystemConfig } from '../support/system-config.ts';
import { consumeUntil, testConfig, testKafka, testLog, unique } from '../support/stack.ts';
import { track } from '../support/tracks.ts';
import { eventually, startReceiver, type Receiver } from '../support/webhook-receiver.ts';

const tag = unique('resp-crash');
const T0 = new Date(Date.now() - 20 * 60_000);
const MMSI0 = 219_000_000 + Math.floor(Math.random() * 90_000) * 10;
const WAVES = { before: [MMSI0, MMSI0 + 1, MMSI0 + 2], during: [MMSI0 + 3, MMSI0 + 4, MMSI0 + 5], after: [MMSI0 + 6, MMSI0 + 7] };
const ALL = [...WAVES.before, ...WAVES.during, ...WAVES.after];
const G1 = `G1-${tag}`;
const G2 = `G2-${tag}`;
const ZONE = { name: `Fuel pier ${tag}`, type: 'restricted', alert_level: 'critical', geometry: { type: 'Polygon', coordinates: [[[18.400, 57.300], [18.410, 57.300], [18.410, 57.306], [18.400, 57.306], [18.400, 57.300]]] } };
const ALERT_RULES = { on_entry: { alert_level: 'critical', actions: [{ action: 'notify_operator' }, { action: 'escalate_to', parties: ['supervisor', 'port_authority'] }, { action: 'lock_gates', gates: [G1, G2] }] } };
/** What a critical zone entry under that rule plans (test/e2e/response-loop.test.ts checks the same). */
const PER_ENTRY = [
  'dispatch_drone:inspect:waiting_fleet',
  'escalate:coast_guard:done', 'escalate:port_authority:done', 'escalate:supervisor:done',
  `lock_gate:${G1}:done`, `lock_gate:${G2}:done`,
  'notify:audio_alarm:done', 'notify:dashboard:done', 'notify:push:done',
];
const FINAL = ['done', 'muted', 'waiting_fleet'];
// The child's pool is larger than the default, so the lock_gate transactions held waiting leave connections for the rest of its work.
const CHILD_ENV = { PSS_DATABASE_POOL_SIZE: '30' };

interface ActionRow {
  id: string;
  kind: string;
  target: string;
  event_id: string;
  mmsi: number;
  status: string;
  attempts: number;
  claimed: boolean;
  result: Record<string, unknown> | null;
  done_at: string | null;
}

describe('the instance executing response actions killed with SIGKILL', () => {
  let db: ScratchDatabase | undefined;
  let config: Config;
  const producer = new KafkaProducer(testKafka());
  let api: RunningService;
  let child: ChildService | undefined;
  let receiver: Receiver;
  let admin: string;
  const hooks: Record<string, string> = {};
  const url = (path: string) => `${api.url}/v1${path}`;

  /** Every action planned for the events of these vessels, as the action log holds it now. */
  async function actionsOf(mmsis: readonly number[]): Promise<ActionRow[]> {
    const { rows } = await api.context.pool.query<ActionRow>(
      `SELECT a.id, a.kind, a.target, a.event_id, (e.body->'metadata'->>'mmsi')::int AS mmsi, a.status, a.attempts, a.result,
              a.status NOT IN ('done', 'muted', 'waiting_fleet') AND a.lease_until > now() AS claimed, a.done_at::text AS done_at
         FROM response_actions a JOIN security_events e ON e.id = a.event_id
        WHERE (e.body->'metadata'->>'mmsi')::int = ANY($1::int[])`,
      [mmsis],
    );
    return rows;
  }
  /** What an unexpected escalation was: its cause event and the action that sent it, for the failure message. */
  async function explain(causes: readonly string[]): Promise<string> {
    if (causes.length === 0) return 'no escalation beyond the entries';
    const { rows } = await api.context.pool.query(
      `SELECT e.id, e.type, e.severity, e.source_module, e.body->>'source_device' AS source_device, e.zone, e.incident_id, e.body->'metadata' AS metadata, e.occurred_at::text AS at, e.created_at::text AS stored_at,
              a.kind, a.target, a.source, a.reason, a.level, a.status, a.attempts, a.created_at::text AS planned_at, a.done_at::text AS done_at
         FROM security_events e LEFT JOIN response_actions a ON a.event_id = e.id AND a.kind = 'escalate'
        WHERE e.id = ANY($1)`,
      [causes],
    );
    return `unexpected escalations: ${JSON.stringify(rows)}; child log: ${JSON.stringify(child?.logs().filter((l) => /warn|error|escalat/i.test(l)).slice(-20))}`;
  }
  const finished = (rows: readonly ActionRow[], n: number) => rows.length === n && rows.every((a) => FINAL.includes(a.status));
  const enter = (mmsis: readonly number[]) => producer.send(mmsis.flatMap((mmsi) =>
    track(mmsi, T0, [{ minute: 0, lon: 18.395, lat: 57.303 }, { minute: 2, lon: 18.405, lat: 57.303 }, { minute: 6, lon: 18.406, lat: 57.303 }], 30)
      .map((p) => ({ topic: api.context.topics.aisPositions, key: String(p.mmsi), value: JSON.stringify(p) }))));

  beforeAll(async () => {
    db = await scratchDatabase('resp_crash');
    config = testConfig({ PSS_DATABASE_URL: db.url, PSS_TOPIC_PREFIX: `${tag}.`, PSS_WEBHOOK_ALLOW_LOOPBACK: 'true', PSS_RATE_LIMIT_BURST: '10000' });
    receiver = await startReceiver();
    api = await startService(config, ['api'], testLog, FEATURES);
    const { pool } = api.context;
    admin = (await createApiKey(pool, config.environment, { name: 'response-crash', scopes: ['maritime:write', 'webhooks:write', 'system:read', 'system:write', 'events:read'] }, 'test')).key;
    for (const path of ['supervisor', 'port_authority', 'push']) {
      const res = await call(url('/webhooks'), admin, { method: 'POST', json: { name: `${path} ${tag}`, url: receiver.url(`/${path}`), events: ['fence_tamper'], secret: 'whsec_response_crash_0123456789abcdef' } });
      expect(res.status, res.text).toBe(201);
      hooks[path] = res.json.data.id;
    }
    // The defaults, with our receivers and gates.
    await changeSystemConfig(url(''), admin, (current) => ({
      ...current,
      // No acknowledgement timeout at the critical level: the actions counted are the entries' own, none of a sweep's.
      alert_levels: { ...DEFAULT_SYSTEM_CONFIG.alert_levels, critical: { ...DEFAULT_SYSTEM_CONFIG.alert_levels.critical, ack_timeout_minutes: null } },
      channels: { push: { webhook_ids: [hooks.push!] } },
      parties: [
        ...DEFAULT_SYSTEM_CONFIG.parties.map((p) => ({ ...p, webhook_ids: hooks[p.id] === undefined ? [] : [hooks[p.id]!] })),
        ...current.parties.filter((p) => !DEFAULT_SYSTEM_CONFIG.parties.some((d) => d.id === p.id)),
      ],
      escalation_order: DEFAULT_SYSTEM_CONFIG.escalation_order,
      gates: [...current.gates, { id: G1, name: 'Pier gate north' }, { id: G2, name: 'Pier gate south' }],
      incidents: DEFAULT_SYSTEM_CONFIG.incidents,
    }));
    const zone = await call(url('/maritime/zones'), admin, { method: 'POST', json: ZONE });
    expect(zone.status, zone.text).toBe(201);
    const rules = await call(url(`/maritime/zones/${zone.json.data.id}/rules`), admin, { method: 'PUT', json: { alert_rules: ALERT_RULES } });
    expect(rules.status, rules.text).toBe(200);
  });
  afterAll(async () => {
    await child?.kill();
    await producer.close();
    await api?.stop();
    await receiver?.close();
    await db?.drop();
  }, 120_000);

  it('executes every planned action once: nothing repeated, nothing lost', async () => {
    const { pool, topics } = api.context;
    child = await startChildService(config, 'processors', CHILD_ENV);

    // Wave 1: executed in full, and its lock commands acknowledged by Kafka, before anything goes wrong.
    await enter(WAVES.before);
    await eventually(async () => finished(await actionsOf(WAVES.before), 9 * WAVES.before.length), 45_000);
    const before = await actionsOf(WAVES.before);
    expect(before.map((a) => a.status).filter((s) => !FINAL.includes(s))).toEqual([]);
    const commandIds = (rows: readonly ActionRow[]) => rows.filter((a) => a.kind === 'lock_gate').map((a) => a.result?.command_id as string);
    const unsent = async (ids: string[]) => Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM gate_command_outbox WHERE command_id = ANY($1) AND sent_at IS NULL', [ids])).rows[0]!.n);
    await eventually(async () => (await unsent(commandIds(before))) === 0, 30_000);
    expect(await unsent(commandIds(before))).toBe(0);

    // Wave 2: the transactions recording and executing its actions wait for the table lock held here, before their commit.
    const blocker = await pool.connect();
    let killedWith: ActionRow[] = [];
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE gate_command_outbox IN SHARE MODE');
      await enter(WAVES.during);
      const waiting = async () => Number((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE '%gate_command_outbox%'`)).rows[0]!.n);
      await eventually(async () => (await waiting()) > 0, 45_000);
      await new Promise((r) => setTimeout(r, 1_000)); // what is not held by the lock finishes meanwhile
      killedWith = await actionsOf(WAVES.during);
      await child.kill('SIGKILL');
      child = undefined;
    } finally {
      await blocker.query('ROLLBACK');
      blocker.release();
    }
    // Recorded and executed in one transaction each, none of wave 2's actions had committed.
    expect(killedWith).toEqual([]);

    // Wave 3 arrives while no processors instance runs; a new one picks it up and takes over the dead one's claims once their lease ends.
    await enter(WAVES.after);
    child = await startChildService(config, 'processors', CHILD_ENV);
    await eventually(async () => finished(await actionsOf(ALL), 9 * ALL.length), 90_000);
    const actions = await actionsOf(ALL);

    // Every vessel's entry: its nine actions, each recorded once and finished.
    for (const mmsi of ALL) {
      const mine = actions.filter((a) => a.mmsi === mmsi);
      expect(new Set(mine.map((a) => a.event_id)).size, `vessel ${mmsi}: one event planned`).toBe(1);
      expect(mine.map((a) => `${a.kind}:${a.target}:${a.status}`).sort(), `vessel ${mmsi}`).toEqual(PER_ENTRY);
    }
    const byId = new Map(actions.map((a) => [a.id, a]));
    // Finished before the kill: not run again (attempts and completion time unchanged).
    for (const a of before) expect(byId.get(a.id), a.id).toMatchObject({ status: a.status, attempts: a.attempts, done_at: a.done_at });
    // In flight at the kill: rolled back with the dead instance, planned and run once by the new one.
    const executedOnce = (a: ActionRow) => a.kind === 'dispatch_drone' || a.status === 'muted' || a.attempts === 1;
    expect(actions.filter((a) => !executedOnce(a)).map((a) => `${a.kind}:${a.attempts}`)).toEqual([]);

    // One lock command per (action, gate) on gate.commands. With no send in flight at the kill (the lock
    // also held the outbox's bookkeeping), no command_id appears twice: dedupe by command_id is not needed here.
    const locks = actions.filter((a) => a.kind === 'lock_gate');
    const lockIds = new Set(locks.map((a) => a.id));
    const ours = (records: InRecord[]) => records.map((r) => valueOf(r) as GateCommand).filter((c) => lockIds.has(c.cause?.action_id as string));
    const commands = ours(await consumeUntil(topics.gateCommands, (records) => ours(records).length >= locks.length, { timeoutMs: 30_000, quietMs: 2_000 }));
    expect(commands).toHaveLength(locks.length);
    expect(new Set(commands.map((c) => c.command_id)).size).toBe(locks.length);
    expect(commands.map((c) => `${c.cause?.action_id}:${c.gate}:${c.action}`).sort()).toEqual(locks.map((a) => `${a.id}:${a.target}:lock`).sort());
    expect(commands.map((c) => c.command_id).sort()).toEqual(locks.map((a) => a.result?.command_id).sort());

    // One gate_locked and one incident_escalated stored per action.
    const stored = await pool.query<{ type: string; action_id: string; n: number }>(
      `SELECT type, body->'metadata'->>'action_id' AS action_id, count(*)::int AS n FROM security_events
        WHERE type IN ('gate_locked', 'incident_escalated') AND body->'metadata'->>'action_id' = ANY($1) GROUP BY 1, 2`,
      [actions.map((a) => a.id)],
    );
    expect(stored.rows.every((r) => r.n === 1)).toBe(true);
    expect(stored.rows.filter((r) => r.type === 'gate_locked').map((r) => r.action_id).sort()).toEqual([...lockIds].sort());
    expect(stored.rows.filter((r) => r.type === 'incident_escalated').map((r) => r.action_id).sort()).toEqual(actions.filter((a) => a.kind === 'escalate').map((a) => a.id).sort());

    // At the receivers: one escalation per party per entry, and the entry itself once on the push channel.
    const entries = [...new Set(actions.map((a) => a.event_id))].sort();
    const at = (path: string) => receiver.received.filter((r) => r.path === path).map((r) => r.body.event);
    await eventually(() => ['/supervisor', '/port_authority', '/push'].every((p) => at(p).length >= entries.length), 30_000);
    await new Promise((r) => setTimeout(r, 1_000)); // a repeated delivery would arrive meanwhile
    for (const party of ['supervisor', 'port_authority']) {
      const got = at(`/${party}`);
      expect(got.every((e) => e.type === 'incident_escalated' && e.metadata.party === party), party).toBe(true);
      const causes = got.map((e) => e.metadata.cause_event_id as string).sort();
      expect(causes, `${party}: ${await explain(causes.filter((id) => !entries.includes(id)))}`).toEqual(entries);
    }
    // The push channel takes every event of level medium and up the loop answers (one of our vessels' other
    // events, a dwell, may be among them): each delivered once, every entry among them.
    const pushed = at('/push').map((e) => e.id);
    expect(new Set(pushed).size).toBe(pushed.length);
    expect(pushed.filter((id) => entries.includes(id)).sort()).toEqual(entries);

    // One incident per vessel, each holding its entry.
    for (const mmsi of ALL) {
      const list = await call(url(`/incidents?mmsi=${mmsi}`), admin);
      expect(list.json.data, `vessel ${mmsi}`).toHaveLength(1);
      expect(list.json.data[0]).toMatchObject({ key: `vessel:${mmsi}`, severity: 'critical', event_count: 1 });
    }
  }, 240_000);
});
