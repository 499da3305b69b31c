// Issue 23, part E, on the real PostGIS and Kafka: a decision's command is written with its transaction
// and only once; two senders racing over one outbox send every command once, each gate's in the order
// written; with the broker unreachable commands are retried after their delay and all delivered, the
// transaction's audit trail saying once that the lane was not told and then that it was.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { findingsOf } from '../../../../ingest/gate/readings.ts';
import { TopicCodec } from '../../../../platform/codec/index.ts';
import { KafkaProducer, type InRecord } from '../../../../platform/kafka/index.ts';
import { createPool, inTransaction, migrate, type Pool } from '../../../../platform/postgres.ts';
import { topicNames, topicSpecs } from '../../../../platform/topics.ts';
import { enqueueGateCommand, enqueueGateCommands } from '../../../../processors/gate/command-outbox.ts';
import { deliverCommandNow, GateCommandSender, type CommandSenderDeps } from '../../../../processors/gate/command-sender.ts';
import { gateLockCommand } from '../../../../processors/gate/commands.ts';
import { DEFAULT_THRESHOLDS } from '../../../../processors/gate/decision.ts';
import { processReadings } from '../../../../processors/gate/gate-processor.ts';
import { DEFAULT_RISK_RULES } from '../../../../processors/gate/risk.ts';
import type { GateCommand } from '../../../../schemas/gate-transaction.ts';
import type { GateReadingRecord } from '../../../../schemas/gate-reading.ts';
import { valueOf } from '../../../support/codec.ts';
import { reading } from '../../../support/gate-readings.ts';
import { startKafkaProxy, type KafkaProxy } from '../../../support/kafka-proxy.ts';
import { consumeUntil, testConfig, testKafka, testLog, unique, withAdmin } from '../../../support/stack.ts';

const RUN = Math.random().toString(36).slice(2, 8);
const options = { risk: DEFAULT_RISK_RULES, thresholds: DEFAULT_THRESHOLDS, appointments: { site: 'optional', byGate: {} } } as const;

function record(id: string, gate: string, seal = 'intact'): GateReadingRecord {
  const r = reading({ reading_id: `${RUN}-${id}`, gate, inspection: { damage_regions: [], images: [] }, container: { ...reading().container!, seal: { number: 'SL-1', status: seal } } });
  return { ...r, source: 'test', received_at: new Date().toISOString(), findings: findingsOf(r) };
}

const commandOf = (r: InRecord) => valueOf(r) as GateCommand;

describe('gate command outbox', () => {
  const config = testConfig();
  const prefix = `${unique('gatecmds')}.`;
  const topic = topicNames(prefix).gateCommands;
  const pools: Pool[] = [];
  const producers: KafkaProducer[] = [];
  const senders: GateCommandSender[] = [];
  let pool: Pool;
  let proxy: KafkaProxy | undefined;
  const ctx = () => ({ pool, relay: { wake: () => undefined } });

  /** A sender of its own (pool, producer), as another instance would have. */
  const sender = async (brokers?: string, sendTimeoutMs = 5_000): Promise<GateCommandSender> => {
    const own = createPool(config.databaseUrl, 4);
    const producer = new KafkaProducer({ ...testKafka(), ...(brokers === undefined ? {} : { brokers: [brokers] }) });
    pools.push(own);
    producers.push(producer);
    const deps: CommandSenderDeps = { pool: own, producer, codec: new TopicCodec(), topic, log: testLog, sendTimeoutMs };
    const s = new GateCommandSender(deps, { batchSize: 25, gatesPerTurn: 2 });
    senders.push(s);
    await s.start();
    return s;
  };
  const stopSenders = async () => {
    await Promise.all(senders.splice(0).map((s) => s.stop()));
  };
  const unsent = async (ids: string[]) => Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM gate_command_outbox WHERE command_id = ANY($1) AND sent_at IS NULL', [ids])).rows[0]!.n);
  const allSent = async (ids: string[], timeoutMs = 60_000) => {
    const deadline = Date.now() + timeoutMs;
    while ((await unsent(ids)) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    return unsent(ids);
  };

  beforeAll(async () => {
    await migrate(config.databaseUrl, testLog);
    pool = createPool(config.databaseUrl, 4);
    await withAdmin((a) => a.ensureTopics(topicSpecs(prefix).filter((t) => t.name === topic)));
  });
  afterAll(async () => {
    await stopSenders();
    await Promise.all(producers.map((p) => p.close()));
    await Promise.all([pool, ...pools].map((p) => p.end()));
    await proxy?.close();
    await withAdmin((a) => a.deleteTopics([topic])).catch(() => undefined);
  });

  it('writes each decision\'s command in the transaction that stores it, and once', async () => {
    const gate = `gate-outbox-${RUN}`;
    const batch = [record('open', gate), record('held', gate, 'broken')];
    const txs = await processReadings(ctx(), batch, options, undefined);
    const { rows } = await pool.query<{ command_id: string; transaction_id: string; origin: string; lane: string; action: string; sent_at: Date | null }>(
      `SELECT command_id, transaction_id, origin, lane, command->>'action' AS action, sent_at FROM gate_command_outbox WHERE transaction_id = ANY($1) ORDER BY seq`,
      [txs.map((t) => t.id)],
    );
    expect(txs.map((t) => t.status)).toEqual(['approved', 'held']);
    expect(rows.map((r) => [r.command_id, r.transaction_id, r.origin, r.lane, r.action, r.sent_at])).toEqual([
      [`cmd_${txs[0]!.id}_decision`, txs[0]!.id, 'decision', 'lane-2', 'open', null],
      [`cmd_${txs[1]!.id}_decision`, txs[1]!.id, 'decision', 'lane-2', 'hold', null],
    ]);
    // The batch again (a replay after a crash): no second command.
    expect(await processReadings(ctx(), batch, options, undefined)).toEqual([]);
    expect(Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM gate_command_outbox WHERE transaction_id = ANY($1)', [txs.map((t) => t.id)])).rows[0]!.n)).toBe(2);
    // A cause rolled back leaves no command; a lock enqueued twice is one command.
    const lock = gateLockCommand({ gate, actionId: `act-${RUN}`, reason: 'test', issuedAt: new Date().toISOString(), issuedBy: 'system:response' });
    await expect(inTransaction(pool, async (client) => {
      await enqueueGateCommand(client, lock);
      throw new Error('the cause failed');
    })).rejects.toThrow('the cause failed');
    expect(await unsent([lock.command_id])).toBe(0);
    expect(await inTransaction(pool, (client) => enqueueGateCommand(client, lock))).toBe(true);
    expect(await inTransaction(pool, (client) => enqueueGateCommand(client, lock))).toBe(false);
    expect(await unsent([lock.command_id])).toBe(1);

    await sender();
    expect(await allSent([...rows.map((r) => r.command_id), lock.command_id])).toBe(0);
    await stopSenders();
  });

  it('sends every command once with two senders racing, each gate\'s in the order written', async () => {
    const gates = Array.from({ length: 6 }, (_, g) => `gate-race-${RUN}-${g}`);
    const command = (gate: string, n: number): GateCommand => ({
      command_id: `cmd_race_${RUN}_${gate}_${n}`, gate, lane: `lane-${n % 3}`, action: n % 2 === 0 ? 'open' : 'hold', transaction_id: `gtx_race_${RUN}_${n}`,
      issued_at: new Date().toISOString(), issued_by: 'test', reason: 'race', origin: 'response',
    });
    const written: GateCommand[] = [];
    await Promise.all([sender(), sender()]);
    // Written while both senders run, in many small transactions, each touching every gate.
    for (let round = 0; round < 30; round++) {
      const chunk = gates.flatMap((gate) => [0, 1, 2, 3].map((i) => command(gate, round * 4 + i)));
      await inTransaction(pool, (client) => enqueueGateCommands(client, chunk));
      written.push(...chunk);
    }
    const ids = written.map((c) => c.command_id);
    expect(await allSent(ids)).toBe(0);
    await stopSenders();

    const mine = new Set(ids);
    const records = (await consumeUntil(topic, (rs) => rs.filter((r) => mine.has(commandOf(r).command_id)).length >= ids.length, { quietMs: 1_000 }))
      .filter((r) => mine.has(commandOf(r).command_id));
    expect(records).toHaveLength(ids.length);
    expect(new Set(records.map((r) => commandOf(r).command_id)).size).toBe(ids.length);
    for (const gate of gates) {
      expect(records.filter((r) => r.key === gate).map((r) => commandOf(r).command_id)).toEqual(written.filter((c) => c.gate === gate).map((c) => c.command_id));
    }
  });

  it('records an override\'s first attempt however long the audit chain is busy (the claim\'s wait bound ends with the claim)', async () => {
    const gate = `gate-busy-${RUN}`;
    const [tx] = await processReadings(ctx(), [record('busy', gate)], options, undefined);
    const command: GateCommand = { command_id: `cmd_${tx!.id}_override`, gate, lane: 'lane-2', action: 'open', transaction_id: tx!.id, issued_at: new Date().toISOString(), issued_by: 'op-1', reason: 'test', origin: 'override' };
    await inTransaction(pool, (client) => enqueueGateCommands(client, [command], 60_000));
    const producer = new KafkaProducer(testKafka());
    producers.push(producer);
    const deps: CommandSenderDeps = { pool, producer, codec: new TopicCodec(), topic, log: testLog, sendTimeoutMs: 2_000 };
    // Another transaction holds the audit chain's lock (store.ts AUDIT_CHAIN_LOCK) for longer than the send timeout.
    const holder = await pool.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT pg_advisory_xact_lock($1)', [0x6761_7465]);
    const delivered = deliverCommandNow(deps, command.command_id);
    await new Promise((r) => setTimeout(r, 4_000));
    await holder.query('COMMIT');
    holder.release();
    expect(await delivered).toBe(true);
    expect(await unsent([command.command_id])).toBe(0);
    const { rows } = await pool.query<{ action: string }>('SELECT action FROM gate_audit WHERE transaction_id = $1 ORDER BY seq', [tx!.id]);
    expect(rows.map((r) => r.action)).toEqual(['system_decision', 'gate_command_acknowledged']);
  });

  it('retries while the broker is unreachable and delivers everything once it is back', async () => {
    proxy = await startKafkaProxy(inject('kafkaBrokers').split(',')[0] as string);
    await sender(proxy.address, 1_000);
    const gate = `gate-cut-${RUN}`;
    // The sender's producer has connected; now the broker goes away.
    await processReadings(ctx(), [record('warm', gate)], options, undefined);
    const warm = `cmd_${(await pool.query<{ id: string }>('SELECT id FROM gate_transactions WHERE reading_id = $1', [`${RUN}-warm`])).rows[0]!.id}_decision`;
    expect(await allSent([warm])).toBe(0);
    proxy.cut();
    const txs = await processReadings(ctx(), [record('cut-1', gate), record('cut-2', gate, 'broken'), record('cut-3', gate)], options, undefined);
    const ids = txs.map((t) => `cmd_${t.id}_decision`);
    const failed = async () => Number((await pool.query<{ n: string }>('SELECT min(attempts) AS n FROM gate_command_outbox WHERE command_id = ANY($1)', [ids])).rows[0]!.n);
    const deadline = Date.now() + 30_000;
    while ((await failed()) < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(await failed()).toBeGreaterThanOrEqual(2);
    expect(await unsent(ids)).toBe(3);
    proxy.restore();

    expect(await allSent(ids)).toBe(0);
    await stopSenders();
    const { rows } = await pool.query<{ command_id: string; attempts: number; last_error: string | null }>('SELECT command_id, attempts, last_error FROM gate_command_outbox WHERE command_id = ANY($1)', [ids]);
    for (const r of rows) {
      expect(r.attempts).toBeGreaterThanOrEqual(3);
      expect(r.last_error).toBeTruthy();
    }
    // On the topic, in the order written (a command acknowledged late and retried may be there twice).
    const seen = (await consumeUntil(topic, (rs) => ids.every((id) => rs.some((r) => commandOf(r).command_id === id)), { quietMs: 500 })).map((r) => commandOf(r).command_id).filter((id) => ids.includes(id));
    expect([...new Set(seen)]).toEqual(ids);
    // The audit trail: the decision, the failure once, the acknowledgement once.
    for (const t of txs) {
      const { rows: audit } = await pool.query<{ action: string }>('SELECT action FROM gate_audit WHERE transaction_id = $1 ORDER BY seq', [t.id]);
      expect(audit.map((a) => a.action)).toEqual(['system_decision', 'gate_command_failed', 'gate_command_acknowledged']);
    }
  });
});
