// The producer role: idempotent, acks=all, one request in flight per partition (see KafkaProducer).
import { Producer, compatibilityPartitioner, murmur2 } from '@platformatic/kafka';
import { RecordsRefusedError } from '../errors.ts';
import { byteSerializers, type KafkaOptions, type OutRecord } from './records.ts';

/**
 * Every producer of the service, in one place (docs/kafka-cluster.md). Idempotent with acks=all: a record
 * is acknowledged once min.insync.replicas replicas have it, and a retry of a request the broker already
 * wrote is recognised by its sequence number, not written twice. The retries outlast a broker loss: a
 * killed leader is fenced after broker.session.timeout.ms (9 s by default) and its partitions get new
 * leaders; meanwhile sends fail with connection errors, NOT_LEADER_OR_FOLLOWER (the client refreshes its
 * metadata and goes to the new leader) or NOT_ENOUGH_REPLICAS (retriable), and are retried, backing off
 * from 100 ms to 1 s, for the delivery timeout.
 */
export function producerSettings(deliveryTimeoutMs = 30_000) {
  return { idempotent: true, acks: -1, retries: retriesWithin(deliveryTimeoutMs), retryDelay: (_client: unknown, _operation: string, attempt: number) => retryDelay(attempt), autocreateTopics: false } as const;
}

const retryDelay = (attempt: number) => Math.min(1_000, 100 * 2 ** (attempt - 1));

/** How many retries of retryDelay fit in `ms`. */
export function retriesWithin(ms: number): number {
  let retries = 0;
  for (let waited = 0; waited + retryDelay(retries + 1) <= ms; retries++) waited += retryDelay(retries + 1);
  return Math.max(1, retries);
}

interface SendWaiter {
  resolve: () => void;
  reject: (err: unknown) => void;
  /** Its records in the coalesced batch: [from, to). */
  from: number;
  to: number;
}

interface Refusal {
  index: number;
  code: string;
}

/**
 * An idempotent producer (acks=all) that keeps at most one produce request in flight per partition.
 * @platformatic/kafka 1.x assigned idempotence sequence numbers when a response arrived, so parallel sends
 * to one partition reused them and the broker dropped records (docs/design-notes.md "Kafka client"). 2.x
 * assigns them at send; several requests in flight to one partition would then keep one key's order only if
 * a failed request is retried ahead of those sent after it, which we have not tested, so this stays until a
 * measured gain justifies that test. Records handed in while requests are in flight are coalesced into the
 * next round, so throughput comes from batching. Keys are placed with the Java client's murmur2
 * partitioner, so our records and those of other producers with the same key share a partition.
 */
export class KafkaProducer {
  readonly #opts: KafkaOptions;
  #producer: Producer<string, string | Buffer, string, string>;
  #queued: { records: OutRecord[]; waiters: SendWaiter[] } | undefined;
  #inFlight: Promise<void> | undefined;
  #brokersSeen = 0;

  constructor(opts: KafkaOptions) {
    this.#opts = opts;
    this.#producer = this.#createProducer();
  }

  #createProducer(): Producer<string, string | Buffer, string, string> {
    return new Producer({
      clientId: `${this.#opts.clientId}-producer`,
      bootstrapBrokers: this.#opts.brokers,
      serializers: byteSerializers,
      ...producerSettings(this.#opts.deliveryTimeoutMs),
      partitioner: compatibilityPartitioner,
    });
  }

  /**
   * Resolves once every record is acknowledged by all in-sync replicas. Rejects with RecordsRefusedError
   * when the broker refused some records for good (too large, invalid) and acknowledged all the others;
   * with any other error, nothing is known about which records were written.
   */
  send(records: OutRecord[]): Promise<void> {
    if (records.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.#queued ??= { records: [], waiters: [] };
      const from = this.#queued.records.length;
      for (const r of records) this.#queued.records.push(r);
      this.#queued.waiters.push({ resolve, reject, from, to: this.#queued.records.length });
      if (!this.#inFlight) this.#inFlight = this.#drain();
    });
  }

  async #drain(): Promise<void> {
    while (this.#queued) {
      const batch = this.#queued;
      this.#queued = undefined;
      try {
        const refused: Refusal[] = [];
        const partitionsOf = await this.#onCluster(batch.records);
        // On a cluster, one request per partition, the partitions side by side: a retry after a leader change
        // then goes to that partition's new leader. The client groups a send's partitions by their leader at
        // the first attempt and retries the whole group at the new leader of its first partition, so a group
        // whose partitions moved to different brokers was refused (NOT_LEADER_OR_FOLLOWER) until the delivery
        // timeout ran out (docs/kafka-cluster.md "Failover"). One request in flight per partition keeps each
        // key's order and the idempotence sequence numbers, which are per partition. A single broker leads
        // every partition and nothing can move, so there the client's one request per send stays (six
        // requests instead of one cost ingest about 14 % on one broker).
        const groups = partitionsOf ? partitionGroups(batch.records, partitionsOf) : [{ indexes: batch.records.map((_, i) => i) }];
        // Every group settles before the batch does: a group still sending when another failed would overlap
        // the next batch's request to its partition, and key order needs one request per partition at a time.
        const sent = await Promise.allSettled(groups.map((g) => this.#sendGroup(g, batch.records, refused)));
        const failed = sent.find((r) => r.status === 'rejected');
        if (failed) throw failed.reason;
        const retry = sent.flatMap((r) => (r.status === 'fulfilled' ? r.value : []));
        if (retry.length > 0) await this.#sendAlone(retry, batch.records, refused);
        for (const w of batch.waiters) settle(w, refused);
      } catch (err) {
        for (const w of batch.waiters) w.reject(err);
      }
    }
    this.#inFlight = undefined;
  }

  /**
   * On a cluster (the most brokers this producer has seen is more than one: a cluster down to one live
   * broker is still one its partitions return to), each topic's partition count, from the client's metadata
   * (cached for a few seconds); undefined on a single broker.
   */
  async #onCluster(records: OutRecord[]): Promise<((topic: string) => number) | undefined> {
    const topics = [...new Set(records.map((r) => r.topic))];
    const metadata = await this.#producer.metadata({ topics });
    this.#brokersSeen = Math.max(this.#brokersSeen, metadata.brokers.size);
    if (this.#brokersSeen <= 1) return undefined;
    return (topic) => metadata.topics.get(topic)?.partitionsCount ?? 1;
  }

  /**
   * One partition's records (on a single broker, the whole batch), one request at a time. A record the
   * broker refuses for good is noted in `refused` and the send goes on, so one oversized record cannot
   * block every record after it; a record over REQUEST_BYTES travels alone, so that is the usual case.
   * Returns the records of requests of several records that met a refusal: they are sent again one by one
   * once every partition's requests are done.
   */
  async #sendGroup(group: Pick<PartitionGroup, 'indexes'> & { partition?: number }, records: OutRecord[], refused: Refusal[]): Promise<number[]> {
    const again: number[] = [];
    for (const chunk of requestSized(group.indexes, (i) => records[i] as OutRecord)) {
      try {
        await this.#producer.send({ messages: chunk.map((i) => toMessage(records[i] as OutRecord, group.partition)) });
      } catch (err) {
        const code = refusalCode(err);
        if (code === undefined) throw err;
        if (chunk.length === 1) refused.push({ index: chunk[0] as number, code });
        else again.push(...chunk);
      }
    }
    return again;
  }

  /**
   * When a request of several records meets a refusal, the client's idempotence sequence numbers no longer
   * match the broker's; a new producer (new producer id) keeps later sends consistent, and each record is
   * then sent alone, so that only the offender is refused (the others may be written twice; consumers
   * deduplicate).
   */
  async #sendAlone(indexes: number[], records: OutRecord[], refused: Refusal[]): Promise<void> {
    this.#opts.log.warn({ records: indexes.length }, 'kafka refused a record of a request; renewing the producer and sending the records one by one');
    const old = this.#producer;
    this.#producer = this.#createProducer();
    await old.close().catch(() => undefined);
    for (const i of indexes) {
      const record = records[i] as OutRecord;
      try {
        await this.#producer.send({ messages: [toMessage(record)] });
      } catch (err) {
        const code = refusalCode(err);
        if (code === undefined) throw err;
        refused.push({ index: i, code });
      }
    }
  }

  async close(): Promise<void> {
    await this.#inFlight;
    await this.#producer.close();
  }
}

function settle(waiter: SendWaiter, refused: Refusal[]): void {
  const mine = refused.filter((r) => r.index >= waiter.from && r.index < waiter.to).map((r) => ({ index: r.index - waiter.from, code: r.code }));
  if (mine.length === 0) waiter.resolve();
  else waiter.reject(new RecordsRefusedError(mine));
}

/**
 * Broker errors that refuse a record for what it is, whatever the state of the cluster (the client marks
 * them not retriable). Errors of the cluster (authorization, unknown topic, producer state) are not
 * among them: for those the send fails and the caller retries until an operator mends the cause.
 */
export const RECORD_REFUSAL_CODES = ['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE', 'INVALID_RECORD', 'INVALID_TIMESTAMP'] as const;
const RECORD_REFUSALS = new Set<string>(RECORD_REFUSAL_CODES);

/** The broker's code when `err` (a client error tree) holds a refusal of a record, else undefined. */
function refusalCode(err: unknown, depth = 0): string | undefined {
  const e = err as { apiId?: unknown; errors?: unknown[]; cause?: unknown } | null | undefined;
  if (e === null || e === undefined || typeof e !== 'object' || depth > 8) return undefined;
  if (typeof e.apiId === 'string' && RECORD_REFUSALS.has(e.apiId)) return e.apiId;
  for (const inner of [...(Array.isArray(e.errors) ? e.errors : []), e.cause]) {
    const code = refusalCode(inner, depth + 1);
    if (code !== undefined) return code;
  }
  return undefined;
}

/**
 * One produce request per chunk of at most REQUEST_BYTES of values: a request holds one record batch per
 * partition, and a batch over the broker's message.max.bytes (1 MiB by default) is refused outright, which
 * would fail the same send on every retry.
 */
const REQUEST_BYTES = 512 * 1024;

function* requestSized(indexes: number[], recordAt: (i: number) => OutRecord): Generator<number[]> {
  let chunk: number[] = [];
  let bytes = 0;
  for (const i of indexes) {
    const r = recordAt(i);
    const size = (typeof r.value === 'string' ? Buffer.byteLength(r.value) : r.value.length) + (r.key?.length ?? 0) + 64;
    if (chunk.length > 0 && bytes + size > REQUEST_BYTES) {
      yield chunk;
      chunk = [];
      bytes = 0;
    }
    chunk.push(i);
    bytes += size;
  }
  if (chunk.length > 0) yield chunk;
}

/** The records of one partition of one topic, as indexes into a batch, in the batch's order. */
export interface PartitionGroup {
  topic: string;
  partition: number;
  indexes: number[];
}

/**
 * The batch split by the partition each record goes to: keyed records by the Java client's murmur2
 * placement (as compatibilityPartitioner), records without a key to partition 0 (as the client does with
 * that partitioner).
 */
export function partitionGroups(records: readonly OutRecord[], partitionsOf: (topic: string) => number): PartitionGroup[] {
  const groups = new Map<string, PartitionGroup>();
  records.forEach((r, i) => {
    const partition = r.key === undefined ? 0 : partitionOfKey(r.key, partitionsOf(r.topic));
    const id = `${partition}:${r.topic}`;
    const group = groups.get(id);
    if (group) group.indexes.push(i);
    else groups.set(id, { topic: r.topic, partition, indexes: [i] });
  });
  return [...groups.values()];
}

function toMessage(r: OutRecord, partition?: number) {
  return { topic: r.topic, partition, key: r.key, value: r.value, headers: r.headers, timestamp: r.timestamp === undefined ? undefined : BigInt(r.timestamp) };
}

/** The partition our producer places `key` on (the Java client's murmur2 placement, as compatibilityPartitioner). */
export function partitionOfKey(key: string, partitions: number): number {
  return (murmur2(Buffer.from(key)) & 0x7fffffff) % partitions;
}
