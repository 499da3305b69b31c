// The one module that talks to a Kafka client library (@platformatic/kafka; see the README's design notes
// for the benchmark that chose it). Everything else uses these small types, so the client can be swapped.
import {
  Admin,
  Consumer,
  Producer,
  compatibilityPartitioner,
  murmur2,
  stringDeserializer,
  stringSerializer,
  type Message,
  type MessagesStream,
} from '@platformatic/kafka';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from './log.ts';
import type { TopicSpec } from './topics.ts';
import { withDeadline } from './deadline.ts';
import { RecordsRefusedError } from './errors.ts';

export interface OutRecord {
  topic: string;
  key?: string;
  value: string | Buffer;
  headers?: Record<string, string>;
  /** Milliseconds since the epoch; defaults to the append time. */
  timestamp?: number;
}

export interface InRecord {
  topic: string;
  partition: number;
  offset: bigint;
  key: string | undefined;
  value: Buffer;
  headers: Record<string, string>;
  timestamp: number;
}

export interface KafkaOptions {
  brokers: string[];
  clientId: string;
  log: Logger;
}

export interface ConsumerOptions {
  groupId: string;
  topics: string[];
  /** Largest batch handed to the handler at once. */
  maxBatch?: number;
  /** How long to wait for a batch to fill before handing over what there is. */
  lingerMs?: number;
  /** Where a group without committed offsets starts. */
  startAt?: 'earliest' | 'latest';
  /**
   * False for a reader that rebuilds its state from the whole topic at every start (a private group per
   * instance): it commits nothing, so the broker forgets its group as soon as it leaves instead of keeping
   * the offsets of every past instance until offsets retention expires.
   */
  commitOffsets?: boolean;
  /**
   * For a reader that commits nothing, of one topic: the offset to start each listed partition at (others
   * start at `startAt`). A reader that rebuilt its state up to known offsets from elsewhere (the vessel
   * directory from the vessels table) follows the topic from there instead of replaying it whole.
   */
  startOffsets?: ReadonlyMap<number, bigint>;
  /**
   * While no record arrives, the handler is also called with an empty batch this often (0, the default:
   * never), so a handler that holds records (a fragment waiting for its partner) can let them go on time;
   * the commit then moves past what it no longer holds, on every partition this consumer has read.
   */
  tickMs?: number;
}

/** A record a handler has read but not finished with (e.g. the first fragment of a message). */
export interface HeldRecord {
  topic: string;
  partition: number;
  offset: bigint;
}

/**
 * Handles one batch. Offsets are committed only after it resolves, so effects must be durable (or
 * idempotent) by then. A rejection means "try this batch again later": the consumer pauses, backs off and
 * redelivers; records that can never succeed must be dead-lettered by the handler, not thrown.
 * A handler that keeps records in memory across batches returns, each time, the oldest record it still
 * holds per partition: commits then stop below it, so a crash or rebalance re-reads it.
 */
export type BatchHandler = (records: InRecord[]) => Promise<void | Iterable<HeldRecord>>;

const byteSerializers = {
  key: stringSerializer,
  value: (v?: string | Buffer) => (v === undefined ? undefined : typeof v === 'string' ? Buffer.from(v) : v),
  headerKey: stringSerializer,
  headerValue: stringSerializer,
};

const byteDeserializers = {
  key: stringDeserializer,
  value: (v?: Buffer) => v,
  headerKey: stringDeserializer,
  headerValue: stringDeserializer,
};

/**
 * An idempotent producer (acks=all) that keeps exactly one produce request in flight: @platformatic/kafka
 * 1.x assigns idempotence sequence numbers when a response arrives, so parallel sends to one partition
 * reuse them and the broker drops or refuses records (measured: see the README's Kafka client notes).
 * Records handed in while a request is in flight are coalesced into the next one, so throughput comes
 * from batching, not concurrency. Keys are placed with the Java client's murmur2 partitioner, so our
 * records and those of other producers with the same key share a partition.
 */
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
      idempotent: true,
      acks: -1,
      retries: 10,
      retryDelay: 250,
      autocreateTopics: false,
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
   * its other partitions, and the 1.x client does not advance their idempotence sequence numbers after an
   * error; a new producer (new producer id) keeps later sends consistent, and each record is then sent
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

type Stream = MessagesStream<string, Buffer, string, string>;
type Msg = Message<string, Buffer, string, string>;

/** Partitions by topic, as a group assignment gives them (looked up per record, so no key is built). */
type OwnedPartitions = ReadonlyMap<string, ReadonlySet<number>>;

const owns = (owned: OwnedPartitions, m: { topic: string; partition: number }) => owned.get(m.topic)?.has(m.partition) === true;

/** Waits for the next record, or for the stream to fail or close; `wake` is idempotent. */
class StreamFeed {
  readonly pending: Msg[] = [];
  failure: Error | undefined;
  #wake: (() => void) | undefined;
  /** The partitions the group gave this member at its last join; undefined: all (no group yet, or none told). */
  #owned: OwnedPartitions | undefined;

  constructor(readonly stream: Stream, maxBatch: number, owned?: OwnedPartitions) {
    this.#owned = owned;
    stream.on('data', (message) => {
      if (this.#owned !== undefined && !owns(this.#owned, message)) return;
      this.pending.push(message);
      if (this.pending.length >= maxBatch) stream.pause();
      this.#notify();
    });
    stream.on('error', (err) => {
      this.failure = err;
      this.#notify();
    });
    stream.on('close', () => {
      this.failure ??= new Error('the consumer stream closed');
      this.#notify();
    });
  }

  /** Resolves true when woken (a record, a failure, a stop), false when `timeoutMs` (if above 0) passed first. */
  wait(timeoutMs = 0): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const timer = timeoutMs > 0 ? setTimeout(() => {
        this.#wake = undefined;
        resolve(false);
      }, timeoutMs) : undefined;
      this.#wake = () => {
        clearTimeout(timer);
        resolve(true);
      };
    });
  }

  wake(): void {
    this.#notify();
  }

  /**
   * After a rejoin: records fetched for partitions the group gave another member are dropped, not handled.
   * The new owner reads them from the last committed offset; handling them here too would evaluate them
   * twice, from states this member reloads while the owner moves on.
   */
  keepOnly(owned: OwnedPartitions): void {
    this.#owned = owned;
    let kept = 0;
    for (const m of this.pending) if (owns(owned, m)) this.pending[kept++] = m;
    this.pending.length = kept;
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}

/**
 * A consumer that has not finished a batch (failing and retrying, or not returning), or has not had a
 * working stream, for this long is stuck: /readyz names it (consumersCheck in readiness.ts).
 */
export const CONSUMER_STUCK_AFTER_MS = 60_000;

/** The running consumers of each service (keyed by its Kafka options), for its readiness check. */
const consumersOf = new WeakMap<KafkaOptions, Set<KafkaConsumer>>();

/** What is stuck among the consumers started with these options: one line per stuck consumer. */
export function stuckConsumers(kafka: KafkaOptions, now = Date.now()): string[] {
  const remote = [...(remoteConsumersOf.get(kafka) ?? [])].flatMap((report) => report());
  return [...(consumersOf.get(kafka) ?? [])].flatMap((c) => c.stuck(now) ?? []).concat(remote);
}

const remoteConsumersOf = new WeakMap<KafkaOptions, Set<() => string[]>>();

/**
 * Consumers started with these options in another thread (platform/role-workers.ts) report what is stuck
 * among them through `report`; returns the function that stops counting them.
 */
export function addRemoteConsumers(kafka: KafkaOptions, report: () => string[]): () => void {
  const reports = remoteConsumersOf.get(kafka) ?? new Set();
  reports.add(report);
  remoteConsumersOf.set(kafka, reports);
  return () => reports.delete(report);
}

export class KafkaConsumer {
  readonly #kafka: KafkaOptions;
  /** Since when the current batch (or the stream) has been without success; undefined while all is well. */
  #troubleSince: number | undefined;
  #trouble = '';
  readonly #consumer: Consumer<string, Buffer, string, string>;
  readonly #opts: Required<ConsumerOptions>;
  readonly #log: Logger;
  readonly #stopping = new AbortController();
  #feed: StreamFeed | undefined;
  /** The partitions the group gave this member at its last join (StreamFeed drops records of others). */
  #owned: OwnedPartitions | undefined;
  #done: Promise<void> | undefined;
  /** Per partition read since the last (re)join: the offset after its last handled record, and the last offset committed. */
  #positions = new Map<string, { topic: string; partition: number; next: bigint; committed: bigint }>();

  constructor(kafka: KafkaOptions, opts: ConsumerOptions) {
    this.#opts = { maxBatch: 500, lingerMs: 20, startAt: 'earliest', commitOffsets: true, tickMs: 0, startOffsets: new Map(), ...opts };
    if (this.#opts.startOffsets.size > 0 && (this.#opts.commitOffsets || this.#opts.topics.length !== 1)) {
      // A group's committed offsets and chosen starts would contradict each other at the next rejoin.
      throw new Error('startOffsets is for a reader of one topic that commits nothing');
    }
    this.#kafka = kafka;
    this.#log = kafka.log.child({ consumer: opts.groupId });
    this.#consumer = new Consumer({
      clientId: `${kafka.clientId}-${opts.groupId}`,
      bootstrapBrokers: kafka.brokers,
      groupId: opts.groupId,
      deserializers: byteDeserializers,
      sessionTimeout: 10_000,
      heartbeatInterval: 1_000,
      rebalanceTimeout: 20_000,
      retries: true,
      retryDelay: 500,
      autocommit: false,
      maxWaitTime: 100,
    });
    // Partitions may have moved: commit only what this member reads from now on.
    this.#consumer.on('consumer:group:join', (joined: { assignments?: { topic: string; partitions: number[] }[] | null }) => {
      this.#positions = new Map();
      // A reader with chosen starts reads its partitions whatever the group says (its group is its own).
      if (!joined.assignments || this.#opts.startOffsets.size > 0) return;
      this.#owned = new Map(joined.assignments.map((a) => [a.topic, new Set(a.partitions)]));
      this.#feed?.keepOnly(this.#owned);
    });
  }

  /**
   * Called whenever this member (re)joins its group, i.e. its partitions may have changed. Holders of
   * per-partition state drop their caches here and reload what they own from durable storage.
   */
  onRebalance(listener: () => void): void {
    this.#consumer.on('consumer:group:join', () => listener());
  }

  /** Starts consuming; `stop` drains the in-flight batch. */
  async run(handler: BatchHandler): Promise<void> {
    this.#feed = new StreamFeed(await this.#open(), this.#opts.maxBatch, this.#owned);
    const running = consumersOf.get(this.#kafka) ?? new Set<KafkaConsumer>();
    running.add(this);
    consumersOf.set(this.#kafka, running);
    this.#done = this.#loop(handler);
  }

  #open(): Promise<Stream> {
    const [topic = ''] = this.#opts.topics;
    const chosen = [...this.#opts.startOffsets].map(([partition, offset]) => ({ topic, partition, offset }));
    return this.#consumer.consume({
      topics: this.#opts.topics,
      autocommit: false,
      // Reopened after a failure, a reader with chosen starts begins there again: its state is built by
      // idempotent merges, so records applied twice change nothing.
      ...(chosen.length > 0 ? { mode: 'manual' as const, offsets: chosen } : { mode: 'committed' as const }),
      fallbackMode: this.#opts.startAt,
      highWaterMark: this.#opts.maxBatch * 2,
    });
  }

  async #loop(handler: BatchHandler): Promise<void> {
    const stopping = this.#stopping.signal;
    let reopenAttempt = 0;
    while (!stopping.aborted) {
      const feed = this.#feed as StreamFeed;
      if (feed.pending.length === 0 && feed.failure === undefined) {
        if (!(await feed.wait(this.#opts.tickMs))) {
          if (!stopping.aborted) await this.#commit([], await this.#handleUntilDone([], handler));
          continue;
        }
        if (feed.pending.length > 0 && feed.pending.length < this.#opts.maxBatch && !stopping.aborted) await this.#sleep(this.#opts.lingerMs);
      }
      if (stopping.aborted) break;
      if (feed.failure !== undefined && feed.pending.length === 0) {
        // The client gave up on this stream (e.g. a committed offset fell out of retention): open a new
        // one, which resumes from the committed offsets, rather than stalling the partitions for good.
        const delay = Math.min(30_000, 500 * 2 ** Math.min(reopenAttempt++, 6));
        this.#log.error({ err: feed.failure, retry_in_ms: delay }, 'kafka consumer stream failed; reopening');
        this.#troubled('its stream failed and is being reopened');
        await feed.stream.close().catch(() => undefined);
        await this.#sleep(delay);
        if (stopping.aborted) break;
        try {
          if (isOffsetOutOfRange(feed.failure)) await this.#resetOutOfRange();
          this.#feed = new StreamFeed(await this.#open(), this.#opts.maxBatch, this.#owned);
          this.#troubleSince = undefined;
        } catch (err) {
          this.#log.error({ err }, 'kafka consumer stream could not be reopened');
        }
        continue;
      }
      reopenAttempt = 0;
      const batch = feed.pending.splice(0, this.#opts.maxBatch);
      if (batch.length === 0) continue;
      const held = await this.#handleUntilDone(batch, handler);
      await this.#commit(batch, held);
      if (feed.pending.length < this.#opts.maxBatch && !stopping.aborted) feed.stream.resume();
    }
  }

  /** Why this consumer is stuck, when it has been without success for CONSUMER_STUCK_AFTER_MS; else undefined. */
  stuck(now = Date.now()): string | undefined {
    const since = this.#troubleSince;
    if (since === undefined || now - since < CONSUMER_STUCK_AFTER_MS) return undefined;
    return `consumer ${this.#opts.groupId}: ${this.#trouble} for ${Math.round((now - since) / 1000)} s`;
  }

  #troubled(what: string): void {
    this.#troubleSince ??= Date.now();
    this.#trouble = what;
  }

  /**
   * What Kafka's auto.offset.reset does: a committed offset outside a partition's log (its records were
   * deleted by retention while the group was away) is moved to the log's start or end, per `startAt`, so
   * the group reads on instead of failing the same fetch forever. Other partitions keep their offsets.
   */
  async #resetOutOfRange(): Promise<void> {
    const topics = this.#opts.topics;
    const earliest = await this.#consumer.listOffsets({ topics, timestamp: -2n });
    const latest = await this.#consumer.listOffsets({ topics, timestamp: -1n });
    const committed = await this.#consumer.listCommittedOffsets({
      topics: topics.map((topic) => ({ topic, partitions: (earliest.get(topic) ?? []).map((_, i) => i) })),
    });
    const offsets: { topic: string; partition: number; offset: bigint; leaderEpoch: number }[] = [];
    for (const topic of topics) {
      const starts = earliest.get(topic) ?? [];
      const ends = latest.get(topic) ?? [];
      (committed.get(topic) ?? []).forEach((offset, partition) => {
        const start = starts[partition] ?? 0n;
        const end = ends[partition] ?? 0n;
        if (offset >= 0n && (offset < start || offset > end)) {
          offsets.push({ topic, partition, offset: this.#opts.startAt === 'earliest' ? start : end, leaderEpoch: -1 });
        }
      });
    }
    if (offsets.length === 0) return;
    this.#log.warn({ reset: offsets.map((o) => ({ ...o, offset: String(o.offset) })) }, 'committed offsets outside the log; reset');
    await this.#consumer.commit({ offsets });
  }

  /** Sleeps, returning early when the consumer is stopped. */
  async #sleep(ms: number): Promise<void> {
    await sleep(ms, undefined, { signal: this.#stopping.signal }).catch(() => undefined);
  }

  async #handleUntilDone(batch: Msg[], handler: BatchHandler): Promise<Map<string, bigint>> {
    const records = batch.map(toInRecord);
    this.#troubled(`a batch of ${records.length} records has not finished`);
    for (let attempt = 1; ; attempt++) {
      try {
        const held = new Map<string, bigint>();
        const handled = (await handler(records)) ?? [];
        this.#troubleSince = undefined;
        for (const r of handled) {
          const key = partitionKey(r.topic, r.partition);
          const known = held.get(key);
          if (known === undefined || r.offset < known) held.set(key, r.offset);
        }
        return held;
      } catch (err) {
        const delay = Math.min(30_000, 250 * 2 ** Math.min(attempt, 7));
        this.#log.warn({ err, attempt, delay_ms: delay, records: records.length }, 'batch failed; retrying');
        this.#troubled(`a batch of ${records.length} records has failed ${attempt} times (last: ${(err as Error).message})`);
        await this.#sleep(delay);
        if (this.#stopping.signal.aborted) throw new Error('consumer stopped before the batch succeeded; it will be redelivered');
      }
    }
  }

  /**
   * Commits, on every partition read since the last (re)join, past its last handled record, or only up to
   * the oldest record the handler still holds there; a partition whose commit would not move is left out.
   * So a record let go of later (on a tick, or while another partition is read) is committed past then.
   */
  async #commit(batch: Msg[], held: Map<string, bigint>): Promise<void> {
    if (!this.#opts.commitOffsets) return;
    for (const m of batch) {
      const key = partitionKey(m.topic, m.partition);
      const position = this.#positions.get(key);
      if (position === undefined) this.#positions.set(key, { topic: m.topic, partition: m.partition, next: m.offset + 1n, committed: -1n });
      else position.next = m.offset + 1n;
    }
    const offsets: { topic: string; partition: number; offset: bigint; leaderEpoch: number }[] = [];
    for (const [key, p] of this.#positions) {
      const limit = held.get(key);
      const offset = limit !== undefined && limit < p.next ? limit : p.next;
      if (offset > p.committed) offsets.push({ topic: p.topic, partition: p.partition, offset, leaderEpoch: -1 });
    }
    if (offsets.length === 0) return;
    try {
      await withDeadline(this.#consumer.commit({ offsets }), COMMIT_DEADLINE_MS);
      for (const o of offsets) {
        const p = this.#positions.get(partitionKey(o.topic, o.partition));
        if (p !== undefined && o.offset > p.committed) p.committed = o.offset;
      }
    } catch (err) {
      // A rebalance moved a partition away, or the broker is gone: the partition's next owner re-processes
      // from the last commit, which is safe because every effect is idempotent.
      this.#log.warn({ err, offsets: offsets.map((o) => `${o.topic}/${o.partition}@${o.offset}`) }, 'offset commit failed');
    }
  }

  async stop(): Promise<void> {
    consumersOf.get(this.#kafka)?.delete(this);
    this.#stopping.abort();
    this.#feed?.stream.resume();
    this.#feed?.wake();
    await this.#done?.catch((err) => this.#log.warn({ err }, 'consumer stopped with an unfinished batch'));
    try {
      await this.#feed?.stream.close();
    } catch {
      // Already closed by the client after a fatal error.
    }
    const closed = new Promise<void>((resolve, reject) => this.#consumer.close(true, (err) => (err ? reject(err) : resolve())));
    await withDeadline(closed, COMMIT_DEADLINE_MS).catch((err) => this.#log.warn({ err }, 'consumer did not close cleanly'));
  }
}

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

function partitionKey(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}

function isOffsetOutOfRange(err: unknown): boolean {
  const e = err as { apiId?: string; errors?: unknown[]; aggregateErrors?: unknown[] } | undefined;
  if (e === undefined || e === null) return false;
  if (e.apiId === 'OFFSET_OUT_OF_RANGE') return true;
  return [...(e.errors ?? []), ...(e.aggregateErrors ?? [])].some(isOffsetOutOfRange);
}

/** An offset commit (or close) that cannot finish within this long is abandoned: the commit is only an optimisation of replay. */
const COMMIT_DEADLINE_MS = 5_000;

function toInRecord(m: Msg): InRecord {
  const headers: Record<string, string> = {};
  for (const [k, v] of m.headers) headers[k] = v;
  return {
    topic: m.topic,
    partition: m.partition,
    offset: m.offset,
    key: m.key,
    value: m.value,
    headers,
    timestamp: Number(m.timestamp),
  };
}

/** The partition our producer places `key` on (the Java client's murmur2 placement, as compatibilityPartitioner). */
export function partitionOfKey(key: string, partitions: number): number {
  return (murmur2(Buffer.from(key)) & 0x7fffffff) % partitions;
}

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
