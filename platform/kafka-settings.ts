// The settings of Kafka on a cluster: the topics as deployed (replication, min.insync.replicas, partition
// counts) and how long a producer retries a record, assembled with every other module's in app/config.ts. docs/kafka-cluster.md says how to choose them.
import { int, list, type Setting, type SettingsValues } from './config.ts';
import { TOPICS } from './topics.ts';

const TOPIC_NAMES: readonly string[] = Object.values(TOPICS).map((t) => t.name);

/** `name=count` pairs, e.g. `ais.positions=12,security.events=12`: partition counts that replace the declared defaults. */
const partitionCounts = (raw: string): Record<string, number> => {
  if (raw.trim() === '') return {};
  const out: Record<string, number> = {};
  for (const item of list(raw)) {
    const match = /^([\w.-]+)=(\d{1,4})$/.exec(item);
    if (!match) throw new Error(`"${item}" is not topic=count`);
    const [, name, count] = match as unknown as [string, string, string];
    if (!TOPIC_NAMES.includes(name)) throw new Error(`unknown topic "${name}"; topics are ${TOPIC_NAMES.join(', ')}`);
    if (Number(count) < 1) throw new Error(`${name}: a topic needs at least one partition`);
    out[name] = Number(count);
  }
  return out;
};

export const KAFKA_CLUSTER_SETTINGS = {
  kafkaReplicationFactor: {
    env: 'PSS_KAFKA_REPLICATION_FACTOR',
    description: 'Replicas of each partition of the topics the service creates. Capped, with a warning, at the brokers the cluster has when the topics are created (1 on a single broker). Existing topics are not re-replicated: start-up and `pss topics` report fewer replicas than this by name.',
    default: '3',
    parse: int(1, 16),
  },
  kafkaMinInsyncReplicas: {
    env: 'PSS_KAFKA_MIN_INSYNC_REPLICAS',
    description: 'min.insync.replicas of the topics: replicas that must have a record before the producer (acks=all) is told it is written. Applied as at most the replication factor less one, so one broker may be lost without refusing writes (2 with 3 replicas; 1 with 1 or 2).',
    default: '2',
    parse: int(1, 16),
  },
  topicPartitions: {
    env: 'PSS_TOPIC_PARTITIONS',
    description: 'Partition counts replacing the declared defaults, `topic=count` comma-separated (topic names without PSS_TOPIC_PREFIX), e.g. `ais.positions=24,security.events=12`. A consumer group shares a topic among at most this many instances. Raising it on an existing topic moves keys to other partitions (see docs/kafka-cluster.md); `pss topics --apply` raises it, nothing lowers it.',
    default: '',
    parse: partitionCounts,
  },
  kafkaDeliveryTimeoutMs: {
    env: 'PSS_KAFKA_DELIVERY_TIMEOUT_MS',
    description: 'How long a producer retries a record (leader changes, NOT_ENOUGH_REPLICAS, a broker unreachable) before its send fails and the caller retries it (ingest, relay). Retries within this reuse the idempotent sequence numbers, so the broker drops a copy it already has; longer than broker.session.timeout.ms (9 s by default), so a lost broker\'s partitions find their new leader within it.',
    default: '30000',
    parse: int(1_000, 600_000),
  },
} as const satisfies Record<string, Setting<unknown>>;

type KafkaClusterConfig = SettingsValues<typeof KAFKA_CLUSTER_SETTINGS>;
declare module './config.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merges the Kafka cluster settings into Config
  interface Config extends KafkaClusterConfig {}
}
