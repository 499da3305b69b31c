// Issue 23, part E, end to end: readings put on gate.readings go through the gate pipeline (consumer
// group, decision, Postgres, command outbox, the processors' sender) and each automated decision's command
// reaches gate.commands once, keyed by its gate: open for the approved truck, hold for the flagged, held
// and rejected ones. A gate lock enqueued the way the response loop will (enqueueGateCommand in its own
// transaction) reaches the topic too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gateFeature } from '../../app/features.ts';
import { startService, type RunningService } from '../../app/service.ts';
import { checkDigit } from '../../ingest/gate/iso6346.ts';
import { findingsOf } from '../../ingest/gate/readings.ts';
import { KafkaProducer, type InRecord } from '../../platform/kafka/index.ts';
import { inTransaction } from '../../platform/postgres.ts';
import { topicNames, topicSpecs } from '../../platform/topics.ts';
import { enqueueGateCommand } from '../../processors/gate/command-outbox.ts';
import { gateLockCommand } from '../../processors/gate/commands.ts';
import { transactionId } from '../../processors/gate/transaction.ts';
import type { GateReadingRecord } from '../../schemas/gate-reading.ts';
import type { GateCommand } from '../../schemas/gate-transaction.ts';
import { valueOf } from '../support/codec.ts';
import { reading } from '../support/gate-readings.ts';
import { consumeUntil, testConfig, testKafka, testLog, unique, withAdmin } from '../support/stack.ts';

const containerId = (n: number) => {
  const ten = `CMDU${String(n).padStart(6, '0')}`;
  return `${ten}${checkDigit(ten)}`;
};
const commandOf = (r: InRecord) => valueOf(r) as GateCommand;

describe('gate commands for automated decisions', () => {
  const prefix = `${unique('gatecmd-e2e')}.`;
  const run = prefix.replace(/\W/g, '');
  const gate = `gate-${run}`;
  const topics = topicNames(prefix);
  const producer = new KafkaProducer(testKafka());
  let service: RunningService;

  const truck = (n: number, change: (r: GateReadingRecord) => GateReadingRecord = (r) => r): GateReadingRecord => {
    const base = reading();
    const r = reading({
      reading_id: `rd-${run}-${n}`, gate, lane: `lane-${n}`, captured_at: new Date().toISOString(),
      vehicle: { ...base.vehicle, plate: `CMD ${n}`, appointment_id: undefined },
      container: { ...base.container!, id: containerId(n) },
      inspection: { damage_regions: [], images: base.inspection!.images },
    });
    const changed = change({ ...r, source: 'e2e', received_at: new Date().toISOString(), findings: [] });
    return { ...changed, findings: findingsOf(changed) };
  };

  beforeAll(async () => {
    await withAdmin((admin) => admin.ensureTopics(topicSpecs(prefix)));
    service = await startService(testConfig({ PSS_TOPIC_PREFIX: prefix, PSS_GATE_APPOINTMENTS: 'optional' }), ['processors'], testLog, [gateFeature]);
  });
  afterAll(async () => {
    await producer.close();
    await service?.stop();
    await withAdmin((a) => a.deleteTopics(topicSpecs(prefix).map((t) => t.name))).catch(() => undefined);
  });

  it('puts each decision\'s command on gate.commands once, keyed by its gate', async () => {
    const seal = (status: string) => (r: GateReadingRecord) => ({ ...r, container: { ...r.container!, seal: { ...r.container!.seal!, status } } });
    // A misread check digit: flagged alone (35), rejected with a tampered seal (35 + 60).
    const misread = (r: GateReadingRecord) => ({ ...r, container: { ...r.container!, id: `${r.container!.id!.slice(0, 10)}${(Number(r.container!.id![10]) + 1) % 10}` } });
    const trucks = [
      { r: truck(1), status: 'approved', action: 'open' },
      { r: truck(2, misread), status: 'flagged', action: 'hold' },
      { r: truck(3, seal('broken')), status: 'held', action: 'hold' },
      { r: truck(4, (r) => misread(seal('tampered')(r))), status: 'rejected', action: 'hold' },
    ];
    await producer.send(trucks.map(({ r }) => ({ topic: topics.gateReadings, key: r.gate, value: JSON.stringify(r) })));
    const ids = new Set(trucks.map(({ r }) => transactionId(r.reading_id)));
    const mine = (rs: InRecord[]) => rs.filter((r) => ids.has(commandOf(r).transaction_id ?? ''));
    // Read on for a while after all four arrived, so a second copy of one would be seen.
    const records = mine(await consumeUntil(topics.gateCommands, (rs) => mine(rs).length >= trucks.length, { timeoutMs: 30_000, quietMs: 2_000 }));
    expect(records.map((r) => r.key)).toEqual(trucks.map(() => gate));
    const byTransaction = new Map(records.map((r) => [commandOf(r).transaction_id, commandOf(r)]));
    expect(records).toHaveLength(trucks.length);
    for (const { r, status, action } of trucks) {
      const id = transactionId(r.reading_id);
      expect(byTransaction.get(id)).toMatchObject({ command_id: `cmd_${id}_decision`, gate, lane: r.lane, action, origin: 'decision', transaction_status: status, issued_by: 'system:gate-processor' });
    }
    const { rows } = await service.context.pool.query<{ id: string; status: string }>('SELECT id, status FROM gate_transactions WHERE id = ANY($1)', [[...ids]]);
    expect(new Map(rows.map((x) => [x.id, x.status]))).toEqual(new Map(trucks.map(({ r, status }) => [transactionId(r.reading_id), status])));
  });

  it('sends a gate lock written by another module in its own transaction', async () => {
    const lock = gateLockCommand({ gate, actionId: `act-${run}`, reason: 'Vessel entered Holmen naval base', issuedAt: new Date().toISOString(), issuedBy: 'system:response', incidentId: `inc-${run}` });
    expect(await inTransaction(service.context.pool, (client) => enqueueGateCommand(client, lock))).toBe(true);
    const records = (await consumeUntil(topics.gateCommands, (rs) => rs.some((r) => commandOf(r).command_id === lock.command_id), { timeoutMs: 30_000 }))
      .filter((r) => commandOf(r).command_id === lock.command_id);
    expect(records.map((r) => [r.key, commandOf(r)])).toEqual([[gate, lock]]);
  });
});
