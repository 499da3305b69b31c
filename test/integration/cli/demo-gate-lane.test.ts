// Issue 34 item 7: the demo's gate lane behaves as a lane controller under a lock on gate.commands (real
// Kafka): a lock of one lane sends that lane's trucks to the others, a lock of the whole gate ('*') turns
// every truck away, and gate.readings shows it. Bounded by trucks, not time: it waits for counts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_GATE, startGateLane, type RunningGateLane } from '../../../cli/demo/gate-lane.ts';
import type { LockTaken } from '../../../cli/demo/lane-locks.ts';
import { createCodec, type TopicCodec } from '../../../platform/codec/index.ts';
import { KafkaProducer } from '../../../platform/kafka/index.ts';
import { topicNames, topicSpecs } from '../../../platform/topics.ts';
import type { GateCommand } from '../../../schemas/gate-transaction.ts';
import type { GateReadingRecord } from '../../../schemas/gate-reading.ts';
import { valueOf } from '../../support/codec.ts';
import { pollFor } from '../../support/poll.ts';
import { consumeUntil, testConfig, testKafka, testLog, unique, withAdmin } from '../../support/stack.ts';

describe('the demo gate lane under a lock', () => {
  const prefix = `${unique('demolane')}.`;
  const topics = topicNames(prefix);
  const producer = new KafkaProducer(testKafka());
  const sent: Array<{ reading_id: string; lane: string }> = [];
  const turnedAway: string[] = [];
  const locks: LockTaken[] = [];
  let codec: TopicCodec;
  let lane: RunningGateLane;

  const lock = async (over: Partial<GateCommand>) => {
    const command: GateCommand = { command_id: `cmd_${Math.random().toString(36).slice(2)}`, gate: DEMO_GATE, lane: '*', action: 'lock', issued_at: new Date().toISOString(), issued_by: 'system:response', reason: 'test', origin: 'response', ...over };
    await producer.send([{ topic: topics.gateCommands, key: command.gate, value: codec.encode('gateCommands', command) }]);
    return command;
  };

  const until = (holds: () => boolean, { timeoutMs, what }: { timeoutMs: number; what: string }) =>
    pollFor(() => (holds() ? true : undefined), timeoutMs, () => `${what}: ${sent.length} sent, ${turnedAway.length} turned away, locks ${JSON.stringify(locks)}`);

  beforeAll(async () => {
    await withAdmin((admin) => admin.ensureTopics(topicSpecs(prefix)));
    const config = testConfig({ PSS_TOPIC_PREFIX: prefix });
    codec = await createCodec(config.schemaRegistryUrl, topics, config.positionFormat);
    lane = await startGateLane({ config, log: testLog, producer, topics, codec, kafka: testKafka('demo-lane') }, {
      everyMs: 100, bookingLeadMs: 0,
      onSent: (r) => sent.push(r), onTurnedAway: (t) => turnedAway.push(t.reading_id), onLock: (l) => locks.push(l),
    });
  });
  afterAll(async () => {
    await lane?.stop();
    await producer.close();
    await withAdmin((a) => a.deleteTopics(topicSpecs(prefix).map((t) => t.name))).catch(() => undefined);
  });

  it('sends no truck to a locked lane, and none at all while the whole gate is locked', { timeout: 120_000 }, async () => {
    await until(() => sent.length >= 3, { timeoutMs: 30_000, what: 'trucks before any lock' });
    expect(new Set(sent.map((r) => r.lane))).toEqual(new Set(['lane-1', 'lane-2', 'lane-3']));

    // An override with gate_action lock: its transaction's lane only.
    const laneLock = await lock({ lane: 'lane-2', transaction_id: 'gtx_demo_1', origin: 'override', issued_by: 'op-7' });
    await until(() => locks.length >= 1, { timeoutMs: 30_000, what: 'the lane lock obeyed' });
    expect(locks[0]).toMatchObject({ lane: 'lane-2', command_id: laneLock.command_id });
    const atLaneLock = sent.length;
    await until(() => sent.length >= atLaneLock + 9, { timeoutMs: 30_000, what: 'nine trucks after the lane lock' });
    const afterLaneLock = sent.slice(atLaneLock);
    expect(afterLaneLock.filter((r) => r.lane === 'lane-2')).toEqual([]);
    expect(new Set(afterLaneLock.map((r) => r.lane))).toEqual(new Set(['lane-1', 'lane-3']));
    expect(turnedAway).toEqual([]);

    // The response loop's lock_gates: every lane.
    await lock({});
    await until(() => locks.length >= 2, { timeoutMs: 30_000, what: 'the gate lock obeyed' });
    const atGateLock = sent.length;
    await until(() => turnedAway.length >= 8, { timeoutMs: 30_000, what: 'eight trucks turned away' });
    expect(sent.length).toBe(atGateLock);

    // What reached gate.readings: exactly the trucks sent, on the lanes they took.
    const onTopic = await consumeUntil(topics.gateReadings, (seen) => seen.length >= sent.length, { quietMs: 1_000 });
    const readings = onTopic.map((r) => valueOf(r) as GateReadingRecord);
    expect(readings.map((r) => `${r.reading_id}@${r.lane}`).sort()).toEqual(sent.map((r) => `${r.reading_id}@${r.lane}`).sort());
    expect(readings.filter((r) => turnedAway.includes(r.reading_id))).toEqual([]);
  });
});
