import type { TopicCodec } from './codec/index.ts';
import type { Config } from './config.ts';
import type { KafkaOptions, KafkaProducer } from './kafka/index.ts';
import type { Logger } from './log.ts';
import type { Pool } from './postgres.ts';
import type { PendingStops } from './shutdown.ts';
import type { TopicId } from './topics.ts';

/**
 * What every role gets at start-up: settings, logging, the shared Postgres pool, Kafka access, and the codec
 * that encodes and decodes every topic value.
 */
export interface ServiceContext {
  config: Config;
  log: Logger;
  pool: Pool;
  kafka: KafkaOptions;
  topics: Record<TopicId, string>;
  producer: KafkaProducer;
  codec: TopicCodec;
  /** This instance's event relay (events/relay.ts): wake it after a transaction that stored events commits. */
  relay: RelaySignal;
}

/** What a producer of security events needs from the relay that publishes them. */
export interface RelaySignal {
  /** Publish what was just committed now, rather than at the relay's next sweep. */
  wake(): void;
}

/**
 * A running part of the service; `stop` finishes in-flight work and releases resources. `deadline` (epoch
 * ms, when given) is when the whole shutdown gives up: work still pending then is abandoned, with a log line.
 */
export interface RunningRole {
  name: string;
  /** Stops by `deadline` (epoch ms) as far as it can; a role made of parts names them in `pending` while they stop. */
  stop(deadline?: number, pending?: PendingStops): Promise<void>;
}

/** Roles a feature starts together, stopped together (each with the same deadline). */
export function rolesTogether(name: string, roles: readonly RunningRole[]): RunningRole {
  return {
    name,
    stop: async (deadline, pending) => void (await Promise.all(roles.map((r) => (pending ? pending.track(`${name}/${r.name}`, () => r.stop(deadline, pending)) : r.stop(deadline))))),
  };
}
