// The partition reader role: one topic's partitions from chosen offsets, without a group.
import { Consumer } from '@platformatic/kafka';
import { withDeadline } from '../deadline.ts';
import { byteDeserializers, COMMIT_DEADLINE_MS, type InRecord, type KafkaOptions } from './records.ts';

/**
 * Reads the partitions of one topic from offsets the caller chooses, without a consumer group: it joins
 * nothing, commits nothing and is never rebalanced, so every instance can read the whole topic itself (the
 * WebSocket hub of each API instance) and read any offset range again (a stream client resuming there).
 */
export class KafkaPartitionReader {
  readonly #consumer: Consumer<string, Buffer, string, string>;

  constructor(kafka: KafkaOptions, readonly topic: string, name: string) {
    this.#consumer = new Consumer({
      clientId: `${kafka.clientId}-${name}`,
      bootstrapBrokers: kafka.brokers,
      // Never joined: the client requires a group id, the reader uses none of its operations.
      groupId: `${kafka.clientId}-${name}-unjoined`,
      deserializers: byteDeserializers,
      retries: 2,
      retryDelay: 250,
      timeout: 10_000,
    });
  }

  /** The first offset still in the log (`earliest`) or the next one to be written (`latest`), per partition. */
  async offsets(which: 'earliest' | 'latest'): Promise<bigint[]> {
    const listed = await this.#consumer.listOffsets({ topics: [this.topic], timestamp: which === 'earliest' ? -2n : -1n });
    const offsets = listed.get(this.topic);
    if (!offsets || offsets.length === 0) throw new Error(`topic ${this.topic} has no partitions`);
    return offsets;
  }

  /**
   * One fetch round trip per partition leader: the records at or after `from[p]` for every partition `p`
   * with a defined start, waiting up to `maxWaitMs` for `minBytes` (default: the first byte). Records come in offset order per
   * partition; a start outside a partition's log fails the fetch (check `offsets('earliest')` first).
   */
  async fetch(from: (bigint | undefined)[], opts: { maxWaitMs: number; maxBytes: number; minBytes?: number }): Promise<InRecord[]> {
    const metadata = await this.#consumer.metadata({ topics: [this.topic] });
    const topic = metadata.topics.get(this.topic);
    if (!topic) throw new Error(`topic ${this.topic} is unknown to the cluster`);
    const byLeader = new Map<number, { partition: number; currentLeaderEpoch: number; fetchOffset: bigint; lastFetchedEpoch: number; partitionMaxBytes: number }[]>();
    from.forEach((offset, partition) => {
      const meta = topic.partitions[partition];
      if (offset === undefined || !meta) return;
      const list = byLeader.get(meta.leader) ?? [];
      list.push({ partition, currentLeaderEpoch: -1, fetchOffset: offset, lastFetchedEpoch: -1, partitionMaxBytes: opts.maxBytes });
      byLeader.set(meta.leader, list);
    });
    const responses = await Promise.all(
      [...byLeader].map(([node, partitions]) =>
        this.#consumer.fetch({ node, topics: [{ topicId: topic.id, partitions }], maxWaitTime: opts.maxWaitMs, minBytes: opts.minBytes ?? 1, maxBytes: opts.maxBytes }),
      ),
    );
    const records: InRecord[] = [];
    for (const response of responses) {
      for (const t of response.responses) {
        for (const p of t.partitions) {
          const start = from[p.partitionIndex] ?? 0n;
          for (const batch of p.records ?? []) {
            if (batch.attributes & CONTROL_BATCH) continue;
            for (const r of batch.records) {
              const offset = batch.firstOffset + BigInt(r.offsetDelta);
              // A fetch answers whole batches: skip what precedes the requested offset.
              if (offset < start) continue;
              const headers: Record<string, string> = {};
              for (const [k, v] of r.headers) if (k) headers[k.toString()] = v?.toString() ?? '';
              records.push({
                topic: this.topic,
                partition: p.partitionIndex,
                offset,
                key: r.key?.toString(),
                value: r.value ?? Buffer.alloc(0),
                headers,
                timestamp: Number(batch.firstTimestamp + r.timestampDelta),
              });
            }
          }
        }
      }
    }
    return records;
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve, reject) => this.#consumer.close(true, (err) => (err ? reject(err) : resolve())));
    await withDeadline(closed, COMMIT_DEADLINE_MS).catch(() => undefined);
  }
}

/** Record batch attribute bit of transaction markers, which carry no record of ours. */
const CONTROL_BATCH = 0x20;
