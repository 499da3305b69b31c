// The admin role: topics declared in platform/topics.ts created and checked.
import { Admin } from '@platformatic/kafka';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TopicSpec } from '../topics.ts';
import type { KafkaOptions } from './records.ts';

export class KafkaAdmin {
  readonly #admin: Admin;

  constructor(opts: KafkaOptions, timeoutMs = 5_000) {
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

  /** Creates the topics that do not exist yet; existing ones are left as they are. */
  async ensureTopics(specs: TopicSpec[]): Promise<string[]> {
    const existing = new Set(await this.#admin.listTopics());
    const missing = specs.filter((s) => !existing.has(s.name));
    for (const spec of missing) {
      try {
        await this.#admin.createTopics({
          topics: [spec.name],
          partitions: spec.partitions,
          replicas: 1,
          configs: Object.entries(spec.config).map(([name, value]) => ({ name, value })),
        });
      } catch (err) {
        // Another instance created it between the list and the create.
        if (!String((err as Error).message).match(/already exists/i) && !hasCode(err, 36)) throw err;
      }
    }
    await this.#untilWritable(missing);
    return missing.map((s) => s.name);
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
