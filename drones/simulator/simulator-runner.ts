// Puts a FleetSimulator on the fleet contract: reads drone.commands (a private consumer group; commands
// issued before the simulator started are history, not orders), ticks on the wall clock, and produces its
// telemetry to drone.telemetry and its reports to drone.reports, keyed by drone, in the order it made them.
import { randomUUID } from 'node:crypto';
import type { TopicCodec } from '../../platform/codec/index.ts';
import { KafkaConsumer, type KafkaOptions, type KafkaProducer } from '../../platform/kafka/index.ts';
import type { Logger } from '../../platform/log.ts';
import type { TopicId } from '../../platform/topics.ts';
import type { DroneReport, DroneTelemetry } from '../../schemas/drone.ts';
import type { FleetSimulator } from './fleet-simulator.ts';

export interface SimulatorDeps {
  kafka: KafkaOptions;
  producer: KafkaProducer;
  codec: TopicCodec;
  topics: Record<TopicId, string>;
  topicPrefix: string;
  log: Logger;
}

export interface RunningSimulator {
  /** Called with every record the simulator produced (the demo prints them). */
  stop(): Promise<void>;
}

export async function runSimulator(deps: SimulatorDeps, sim: FleetSimulator, options: { tickMs?: number; onRecord?: (r: DroneTelemetry | DroneReport) => void } = {}): Promise<RunningSimulator> {
  const startedAt = Date.now();
  let chain: Promise<void> = Promise.resolve();
  const emit = (telemetry: DroneTelemetry[], reports: DroneReport[]) => {
    if (telemetry.length === 0 && reports.length === 0) return chain;
    const records = [
      ...telemetry.map((t) => ({ topic: deps.topics.droneTelemetry, key: t.drone_id, value: deps.codec.encode('droneTelemetry', JSON.stringify(t)) })),
      ...reports.map((r) => ({ topic: deps.topics.droneReports, key: r.drone_id, value: deps.codec.encode('droneReports', JSON.stringify(r)) })),
    ];
    for (const r of [...reports, ...telemetry]) options.onRecord?.(r);
    chain = chain.then(() => deps.producer.send(records)).catch((err: unknown) => deps.log.warn({ err }, 'drone simulator: send failed'));
    return chain;
  };
  const consumer = new KafkaConsumer(deps.kafka, { groupId: `${deps.topicPrefix}drone-sim-${randomUUID()}`, topics: [deps.topics.droneCommands], startAt: 'earliest', commitOffsets: false, maxBatch: 100, lingerMs: 1 });
  await consumer.run(async (records) => {
    const { values } = await deps.codec.decode('droneCommands', records);
    const reports: DroneReport[] = [];
    for (const { value } of values) {
      if (Date.parse(value.issued_at) < startedAt - 5_000) continue;
      reports.push(...sim.command(value, Date.now()));
    }
    await emit([], reports);
  });
  const timer = setInterval(() => {
    const out = sim.tick(Date.now());
    void emit(out.telemetry, out.reports);
  }, options.tickMs ?? 250);
  return {
    stop: async () => {
      clearInterval(timer);
      await consumer.stop();
      await chain;
    },
  };
}
