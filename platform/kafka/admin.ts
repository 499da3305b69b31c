// The admin role: topics declared in platform/topics.ts created and checked.
import { Admin } from '@platformatic/kafka';
import { setTimeout as sleep } from 'node:timers/promises';
import { declaredTopics, describeDrift, replicationFor, type DeclaredTopic, type DescribedTopic, type Replication, type ReplicationRequest, type TopicDrift } from '../topic-check.ts';
import type { TopicSpec } from '../topics.ts';
import type { KafkaOptions } from './records.ts';

/** The defaults of PSS_KAFKA_REPLICATION_FACTOR and PSS_KAFKA_MIN_INSYNC_REPLICAS (platform/kafka-settings.ts). */
export const DEFAULT_REPLICATION: ReplicationRequest = { replicationFactor: 3, minInsyncReplicas: 2 };

const TOPIC_RESOURCE = 2;
const SET = 0;

export class KafkaAdmin {
  readonly #admin: Admin;
  readonly #log: KafkaOptions['log'];

  constructor(opts: KafkaOptions, timeoutMs = 5_000) {
    this.#log = opts.log;
    this.#admin = new Admin({
      clientId: `${opts.clientId}-admin`,
      bootstrapBrokers: opts.brokers,
      timeout: timeoutMs,
      retries: 0,
    });
  }

  /** A real metadata round trip to the cluster; rejects when no broker answers. */
  async ping(): Promise<void> {
    await this.#admin.metadata({ topics: [], forceUpdate: true });
  }

  /** The replication topics get on this cluster: `request` capped at the brokers it has now (warned). */
  async replication(request: ReplicationRequest = DEFAULT_REPLICATION): Promise<Replication> {
    const metadata = await this.#admin.metadata({ topics: [], forceUpdate: true });
    const replication = replicationFor(request, metadata.brokers.size);
    if (replication.cappedFrom !== undefined) {
      this.#log.warn({ brokers: metadata.brokers.size, requested: replication.cappedFrom, applied: replication.replicationFactor }, 'the cluster has fewer brokers than PSS_KAFKA_REPLICATION_FACTOR; topics get one replica per broker');
    }
    return replication;
  }

  /**
   * Creates the topics that do not exist yet, with the replication of `request` on this cluster;
   * existing ones are left as they are (checkTopics reports how they differ). Returns the names created.
   */
  async ensureTopics(specs: TopicSpec[], request: ReplicationRequest = DEFAULT_REPLICATION): Promise<string[]> {
    const existing = new Set(await this.#admin.listTopics());
    const missing = specs.filter((s) => !existing.has(s.name));
    if (missing.length === 0) return [];
    const declared = declaredTopics(missing, await this.replication(request));
    for (const topic of declared) {
      try {
        await this.#admin.createTopics({
          topics: [topic.name],
          partitions: topic.partitions,
          replicas: topic.replicationFactor,
          configs: Object.entries(topic.config).map(([name, value]) => ({ name, value })),
        });
      } catch (err) {
        // Another instance created it between the list and the create.
        if (!String((err as Error).message).match(/already exists/i) && !hasCode(err, 36)) throw err;
      }
    }
    await this.#untilWritable(missing);
    return missing.map((s) => s.name);
  }

  /** The declared topics as the cluster has them: partitions with leader, replicas and ISR, and the declared config keys' values. Missing topics are absent. */
  async describeTopics(declared: DeclaredTopic[]): Promise<DescribedTopic[]> {
    const existing = new Set(await this.#admin.listTopics());
    const present = declared.filter((t) => existing.has(t.name));
    if (present.length === 0) return [];
    const metadata = await this.#admin.metadata({ topics: present.map((t) => t.name), forceUpdate: true });
    const configs = await this.#admin.describeConfigs({
      resources: present.map((t) => ({ resourceType: TOPIC_RESOURCE, resourceName: t.name, configurationKeys: Object.keys(t.config) })),
    });
    return present.map((t) => ({
      name: t.name,
      partitions: (metadata.topics.get(t.name)?.partitions ?? []).map((p, partition) => ({ partition, leader: p.leader, replicas: p.replicas, isr: p.isr })),
      config: Object.fromEntries((configs.find((c) => c.resourceName === t.name)?.configs ?? []).map((c) => [c.name, c.value ?? undefined])),
    }));
  }

  /**
   * Mends what `pss topics --apply` can: creates missing topics, adds partitions, sets configs. Replicas
   * are not raised (that moves data between brokers: an operator's reassignment). Returns what it did
   * and what it left, one line each.
   */
  async applyTopics(drift: TopicDrift[], specs: TopicSpec[], request: ReplicationRequest = DEFAULT_REPLICATION): Promise<{ applied: string[]; left: string[] }> {
    const applied: string[] = [];
    const left: string[] = [];
    const missing = new Set(drift.filter((d) => d.kind === 'missing').map((d) => d.topic));
    if (missing.size > 0) {
      await this.ensureTopics(specs.filter((s) => missing.has(s.name)), request);
      applied.push(...[...missing].map((name) => `${name}: created`));
    }
    for (const d of drift) {
      if (d.kind === 'partitions') {
        await this.#admin.createPartitions({ topics: [{ name: d.topic, count: Number(d.declared) }] });
        applied.push(`${d.topic}: partitions ${d.actual} -> ${d.declared}`);
      } else if (d.kind === 'config') {
        await this.#admin.incrementalAlterConfigs({ resources: [{ resourceType: TOPIC_RESOURCE, resourceName: d.topic, configs: [{ name: d.key as string, configOperation: SET, value: d.declared }] }] });
        applied.push(`${d.topic}: ${d.key} ${d.actual} -> ${d.declared}`);
      } else if (d.kind === 'replicas') {
        left.push(describeDrift(d));
      }
    }
    return { applied, left };
  }

  /** A new topic names its leaders before they accept writes; wait until every partition answers. */
  async #untilWritable(specs: TopicSpec[], timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (const spec of specs) {
      const partitions = Array.from({ length: spec.partitions }, (_, i) => ({ partitionIndex: i, timestamp: -1n }));
      for (;;) {
        try {
          await this.#admin.listOffsets({ topics: [{ name: spec.name, partitions }] });
          break;
        } catch (err) {
          if (Date.now() > deadline) throw err;
          await sleep(100);
        }
      }
    }
  }

  /** The next offset to be written on each partition of a topic (its end): what a reader has to reach to be current. */
  endOffsets(topic: string): Promise<Map<number, bigint>> {
    return this.#listOffsets(topic, -1n);
  }

  /** The first offset still in the log on each partition of a topic. */
  startOffsets(topic: string): Promise<Map<number, bigint>> {
    return this.#listOffsets(topic, -2n);
  }

  async #listOffsets(topic: string, timestamp: bigint): Promise<Map<number, bigint>> {
    // Cached metadata: the partition count of a topic does not change under us, and a forced refresh on
    // every call (the zone processor asks before each batch) cost its latency p50 32 -> 127 ms.
    const metadata = await this.#admin.metadata({ topics: [topic] });
    const count = metadata.topics.get(topic)?.partitionsCount ?? 0;
    const partitions = Array.from({ length: count }, (_, i) => ({ partitionIndex: i, timestamp }));
    const [listed] = await this.#admin.listOffsets({ topics: [{ name: topic, partitions }] });
    return new Map((listed?.partitions ?? []).map((p) => [p.partitionIndex, p.offset]));
  }

  /** The next offset a consumer group will read on each partition of `topic`, as it committed it (partitions without a commit are absent). */
  async committedOffsets(groupId: string, topic: string): Promise<Map<number, bigint>> {
    const groups = await this.#admin.listConsumerGroupOffsets({ groups: [groupId] });
    const partitions = groups.find((g) => g.groupId === groupId)?.topics.find((t) => t.name === topic)?.partitions ?? [];
    return new Map(partitions.filter((p) => p.committedOffset >= 0n).map((p) => [p.partitionIndex, p.committedOffset]));
  }

  /** Forgets a consumer group and its committed offsets (its members must have left): it starts over at `startAt`. */
  async deleteGroup(groupId: string): Promise<void> {
    await this.#admin.deleteGroups({ groups: [groupId] });
  }

  async deleteTopics(names: string[]): Promise<void> {
    if (names.length > 0) await this.#admin.deleteTopics({ topics: names });
  }

  async close(): Promise<void> {
    await this.#admin.close();
  }
}

function hasCode(err: unknown, code: number): boolean {
  const errors = (err as { errors?: unknown[] }).errors ?? [];
  return errors.some((e) => (e as { apiCode?: number }).apiCode === code || hasCode(e, code));
}
