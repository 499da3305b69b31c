// The producer role: idempotent, acks=all, one request in flight (see below).
import { Producer, compatibilityPartitioner, murmur2 } from '@platformatic/kafka';
import { RecordsRefusedError } from '../errors.ts';
import { byteSerializers, type KafkaOptions, type OutRecord } from './records.ts';

/**
 * An idempotent producer (acks=all) that keeps exactly one produce request in flight. @platformatic/kafka
 * 1.x assigned idempotence sequence numbers when a response arrived, so parallel sends to one partition
 * reused them and the broker dropped records (README "Kafka client"). 2.x assigns them at send; several
 * requests in flight would then keep one key's order only if a failed request is retried ahead of those
 * sent after it, which we have not tested, so this stays until a measured gain justifies that test. Records handed in while a request is in flight
 * are coalesced into the next one, so throughput comes from batching, not concurrency. Keys are placed with the Java client's murmur2 partitioner, so our
 * records and those of other producers with the same key share a partition.
 */
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

export class KafkaProducer {
  readonly #opts: KafkaOptions;
  #producer: Producer<string, string | Buffer, string, string>;
  #queued: { records: OutRecord[]; waiters: SendWaiter[] } | undefined;
  #inFlight: Promise<void> | undefined;

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
        let at = 0;
        for (const chunk of requestSized(batch.records)) {
          await this.#sendChunk(chunk, at, refused);
          at += chunk.length;
        }
        for (const w of batch.waiters) settle(w, refused);
      } catch (err) {
        for (const w of batch.waiters) w.reject(err);
      }
    }
    this.#inFlight = undefined;
  }

  /**
   * One request. A record the broker refuses for good is noted in `refused` and the send goes on, so one
   * oversized record cannot block every record after it. A record over REQUEST_BYTES travels alone, so
   * that is the usual case. When a request of several records meets a refusal, the broker may have written
   * its other partitions, and the client's idempotence sequence numbers no longer match the broker's after
   * an error; a new producer (new producer id) keeps later sends consistent, and each record is then sent
   * alone, so that only the offender is refused (the others may be written twice; consumers deduplicate).
   */
  async #sendChunk(chunk: OutRecord[], base: number, refused: Refusal[]): Promise<void> {
    try {
      await this.#producer.send({ messages: chunk.map(toMessage) });
    } catch (err) {
      const code = refusalCode(err);
      if (code === undefined) throw err;
      if (chunk.length === 1) {
        refused.push({ index: base, code });
        return;
      }
      this.#opts.log.warn({ code, records: chunk.length }, 'kafka refused a record of a request; renewing the producer and sending the records one by one');
      const old = this.#producer;
      this.#producer = this.#createProducer();
      await old.close().catch(() => undefined);
      for (let i = 0; i < chunk.length; i++) await this.#sendChunk([chunk[i] as OutRecord], base + i, refused);
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
const RECORD_REFUSALS = new Set(['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE', 'INVALID_RECORD', 'INVALID_TIMESTAMP']);

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

function* requestSized(records: OutRecord[]): Generator<OutRecord[]> {
  let chunk: OutRecord[] = [];
  let bytes = 0;
  for (const r of records) {
    const size = (typeof r.value === 'string' ? Buffer.byteLength(r.value) : r.value.length) + (r.key?.length ?? 0) + 64;
    if (chunk.length > 0 && bytes + size > REQUEST_BYTES) {
      yield chunk;
      chunk = [];
      bytes = 0;
    }
    chunk.push(r);
    bytes += size;
  }
  if (chunk.length > 0) yield chunk;
}

function toMessage(r: OutRecord) {
  return { topic: r.topic, key: r.key, value: r.value, headers: r.headers, timestamp: r.timestamp === undefined ? undefined : BigInt(r.timestamp) };
}

/** The partition our producer places `key` on (the Java client's murmur2 placement, as compatibilityPartitioner). */
export function partitionOfKey(key: string, partitions: number): number {
  return (murmur2(Buffer.from(key)) & 0x7fffffff) % partitions;
}
