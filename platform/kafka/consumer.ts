// The consumer role: a group member handing batches to a handler, committing after it, surviving rebalances.
import { Consumer, type MessagesStream } from '@platformatic/kafka';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../log.ts';
import { withDeadline } from '../deadline.ts';
import { byteDeserializers, COMMIT_DEADLINE_MS, toInRecord, type BatchHandler, type KafkaOptions, type Msg } from './records.ts';
import { SILENT_STREAM_MS, readingKey, stalledPartitions, unreadPartitions, type PartitionReading } from './silent-stream.ts';

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
  /** How long the stream may bring nothing before this member checks for unread records (silent-stream.ts). */
  silentStreamMs?: number;
}

type Stream = MessagesStream<string, Buffer, string, string>;

/** Partitions by topic, as a group assignment gives them (looked up per record, so no key is built). */
type OwnedPartitions = ReadonlyMap<string, ReadonlySet<number>>;

const owns = (owned: OwnedPartitions, m: { topic: string; partition: number }) => owned.get(m.topic)?.has(m.partition) === true;

/** Waits for the next record, or for the stream to fail or close; `wake` is idempotent. Exported for its unit test. */
export class StreamFeed {
  readonly pending: Msg[] = [];
  failure: Error | undefined;
  /** When this member last took records from the stream (or it opened); set per batch, not per record. */
  lastRecordAt = Date.now();
  #wake: (() => void) | undefined;
  /** The partitions the group gave this member at its last join; undefined: all (no group yet, or none told). */
  #owned: OwnedPartitions | undefined;

  readonly #maxBatch: number;

  constructor(readonly stream: Stream, maxBatch: number, owned?: OwnedPartitions) {
    this.#owned = owned;
    this.#maxBatch = maxBatch;
    stream.on('data', (message) => {
      if (this.#owned !== undefined && !owns(this.#owned, message)) return;
      this.pending.push(message);
      if (this.pending.length >= this.#maxBatch) stream.pause();
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
    // A full feed paused the stream, and only handling a batch resumes it: a feed emptied here would wait
    // for records that never come, and this member's partitions would stall without a word.
    if (kept < this.#maxBatch && this.stream.isPaused()) this.stream.resume();
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

/**
 * Each request of the client (fetch, join, commit, offsets) is tried this many times more, RETRY_DELAY_MS
 * apart, before it fails; the failure then reaches this consumer, which reopens its stream (and rejoins).
 * Until issue 33 the client retried for ever: a fetch it kept sending to a broker that no longer led its
 * partitions, or a commit abandoned here that landed minutes later, stayed inside the client, and the
 * group froze with records waiting and nothing said. Bounded, every such fault surfaces here, is logged and
 * is recovered from, and a commit given up after COMMIT_DEADLINE_MS has stopped retrying by then.
 */
export const CLIENT_RETRIES = 6;
export const RETRY_DELAY_MS = 500;
/** The longest wait before a failed stream is opened again (it doubles from 500 ms): a cluster that is back is used within seconds. */
const REOPEN_MAX_DELAY_MS = 5_000;
/** How long stop() waits for the batch in hand when no deadline is given. */
const STOP_WAIT_MS = 10_000;

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

/** Topics by consumer group: the groups that commit offsets, whose lag the sampler watches (lag-sampler.ts). */
export type ConsumerGroups = ReadonlyMap<string, readonly string[]>;

const groupsOf = new WeakMap<KafkaOptions, Map<string, string[]>>();
const remoteGroupsOf = new WeakMap<KafkaOptions, Set<() => ConsumerGroups>>();

/**
 * The committing groups of the consumers started with these options, in this thread and in worker threads
 * (addRemoteGroups). A group stays listed after its consumer stops: records that keep arriving for a group
 * nobody reads any more are what its lag status is for.
 */
export function consumerGroups(kafka: KafkaOptions): Map<string, string[]> {
  const all = new Map<string, string[]>();
  const add = (groups: ConsumerGroups) => {
    for (const [group, topics] of groups) all.set(group, [...new Set([...(all.get(group) ?? []), ...topics])]);
  };
  add(groupsOf.get(kafka) ?? new Map());
  for (const report of remoteGroupsOf.get(kafka) ?? []) add(report());
  return all;
}

/** Groups of consumers started with these options in another thread, as `report` gives them; returns the function that forgets them. */
export function addRemoteGroups(kafka: KafkaOptions, report: () => ConsumerGroups): () => void {
  const reports = remoteGroupsOf.get(kafka) ?? new Set();
  reports.add(report);
  remoteGroupsOf.set(kafka, reports);
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
  /** Read positions at the last progress check (readingKey), since the last (re)join. */
  #checked = new Map<string, bigint>();
  #lastCheckAt = Date.now();
  /** Partitions found stalled, at the position they stalled on, with since when; reported by stuck() until they move. */
  #stalls = new Map<string, { next: bigint; since: number; what: string }>();

  constructor(kafka: KafkaOptions, opts: ConsumerOptions) {
    this.#opts = { maxBatch: 500, lingerMs: 20, startAt: 'earliest', commitOffsets: true, tickMs: 0, startOffsets: new Map(), silentStreamMs: SILENT_STREAM_MS, ...opts };
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
      retries: CLIENT_RETRIES,
      retryDelay: RETRY_DELAY_MS,
      autocommit: false,
      maxWaitTime: 100,
    });
    // Partitions may have moved: commit only what this member reads from now on.
    this.#consumer.on('consumer:group:join', (joined: { assignments?: { topic: string; partitions: number[] }[] | null }) => {
      this.#positions = new Map();
      this.#checked = new Map();
      // A reader with chosen starts reads its partitions whatever the group says (its group is its own).
      if (!joined.assignments || this.#opts.startOffsets.size > 0) return;
      this.#owned = new Map(joined.assignments.map((a) => [a.topic, new Set(a.partitions)]));
      this.#feed?.keepOnly(this.#owned);
    });
    // The client gives up on the group when a rejoin fails (and then sends no more heartbeats), or reports
    // heartbeats failing for longer than the session: either way this member no longer takes part, and its
    // partitions stand still. Reopening the stream joins the group again. (An 'error' without a listener
    // would also throw out of the client's callback.)
    this.#consumer.on('error', (err: Error) => this.#failStream(err, 'the client left the group (a rejoin failed)'));
    this.#consumer.on('consumer:heartbeat:stalled', (info: { lastError?: Error; stalledFor?: number }) =>
      this.#failStream(info.lastError ?? new Error('heartbeats stalled'), `heartbeats to the group coordinator stalled for ${Math.round((info.stalledFor ?? 0) / 1000)} s`));
  }

  /** Gives the current stream up as failed (the loop reopens it), unless stopping or already failed. */
  #failStream(err: Error, why: string): void {
    if (this.#stopping.signal.aborted) return;
    this.#log.warn({ err }, `kafka consumer: ${why}; reopening its stream`);
    const feed = this.#feed;
    if (feed === undefined || feed.failure !== undefined) return;
    feed.failure = new Error(`${why}: ${err.message}`, { cause: err });
    feed.wake();
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
    if (this.#opts.commitOffsets) {
      const groups = groupsOf.get(this.#kafka) ?? new Map<string, string[]>();
      groups.set(this.#opts.groupId, [...new Set([...(groups.get(this.#opts.groupId) ?? []), ...this.#opts.topics])]);
      groupsOf.set(this.#kafka, groups);
    }
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
        const { tickMs: tick, silentStreamMs: silent } = this.#opts;
        if (!(await feed.wait(tick > 0 ? Math.min(tick, silent) : silent))) {
          if (stopping.aborted) continue;
          if (tick > 0) await this.#commit([], await this.#handleUntilDone([], handler));
          if (Date.now() - this.#lastCheckAt >= silent) await this.#checkProgress(feed);
          continue;
        }
        if (feed.pending.length > 0 && feed.pending.length < this.#opts.maxBatch && !stopping.aborted) await this.#sleep(this.#opts.lingerMs);
      }
      if (stopping.aborted) break;
      if (feed.failure !== undefined && feed.pending.length === 0) {
        // The client gave up on this stream (e.g. a committed offset fell out of retention): open a new
        // one, which resumes from the committed offsets, rather than stalling the partitions for good.
        const delay = Math.min(REOPEN_MAX_DELAY_MS, 500 * 2 ** Math.min(reopenAttempt++, 6));
        this.#log.error({ err: feed.failure, retry_in_ms: delay }, 'kafka consumer stream failed; reopening');
        this.#troubled('its stream failed and is being reopened');
        // A stream closes once its fetches in flight settle; one stuck at a lost broker must not hold the loop.
        await withDeadline(feed.stream.close(), COMMIT_DEADLINE_MS).catch(() => feed.stream.destroy());
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
      feed.lastRecordAt = Date.now();
      const held = await this.#handleUntilDone(batch, handler);
      await this.#commit(batch, held);
      if (feed.pending.length < this.#opts.maxBatch && !stopping.aborted) feed.stream.resume();
      // Records flowing on some partitions must not hide others standing still.
      if (Date.now() - this.#lastCheckAt >= this.#opts.silentStreamMs && !stopping.aborted) await this.#checkProgress(feed);
    }
  }

  /**
   * Every `silentStreamMs`: are this member's partitions moving? A stream that brought nothing at all while
   * its partitions hold unread records, or a partition whose read position has not moved since the last
   * check while records wait beyond it (and none of its records wait to be handled here), is a stall of the
   * client: the stream is given up as failed, the loop reopens it from the committed offsets (rejoining the
   * group), and stuck() names the partitions until they move. Only for a group that commits (the others'
   * positions are not tracked); a reading that fails is tried again at the next check.
   */
  async #checkProgress(feed: StreamFeed): Promise<void> {
    const silentFor = Date.now() - feed.lastRecordAt;
    this.#lastCheckAt = Date.now();
    if (!this.#opts.commitOffsets || this.#owned === undefined) return;
    try {
      const topics = [...this.#owned].filter(([, partitions]) => partitions.size > 0).map(([topic, partitions]) => ({ topic, partitions: [...partitions] }));
      if (topics.length === 0) return;
      const [ends, committed] = await Promise.all([
        this.#consumer.listOffsets({ topics: topics.map((t) => t.topic), timestamp: -1n }),
        this.#consumer.listCommittedOffsets({ topics }),
      ]);
      const readings: PartitionReading[] = topics.flatMap(({ topic, partitions }) =>
        partitions.map((partition) => {
          const read = this.#positions.get(readingKey({ topic, partition }))?.next;
          const commit = committed.get(topic)?.[partition];
          return { topic, partition, next: read ?? (commit !== undefined && commit >= 0n ? commit : null), end: ends.get(topic)?.[partition] ?? 0n };
        }),
      );
      const before = this.#checked;
      this.#checked = new Map(readings.flatMap((r) => (r.next === null ? [] : [[readingKey(r), r.next] as const])));
      const now = Date.now();
      // A stall ends when its partition moves past where it stood, or has nothing left to read.
      for (const r of readings) {
        const stall = this.#stalls.get(readingKey(r));
        if (stall !== undefined && (r.next === null || r.next > stall.next || r.end <= r.next)) {
          this.#log.info({ partition: `${r.topic}/${r.partition}`, stalled_ms: now - stall.since }, 'consumer: stalled partition moving again');
          this.#stalls.delete(readingKey(r));
        }
      }
      if (feed.failure !== undefined) return;
      const waiting = new Set(feed.pending.map((m) => readingKey(m)));
      const stalled = silentFor >= this.#opts.silentStreamMs && feed.pending.length === 0 ? unreadPartitions(readings) : stalledPartitions(readings, before, waiting);
      if (stalled.length === 0) return;
      const what = stalled.map((r) => `${r.topic}/${r.partition} holds ${r.end - (r.next ?? 0n)} unread records at ${r.next}`).join(', ');
      for (const r of stalled) {
        const key = readingKey(r);
        this.#stalls.set(key, { next: r.next ?? 0n, since: this.#stalls.get(key)?.since ?? now, what: `${r.topic}/${r.partition} (${r.end - (r.next ?? 0n)} unread at ${r.next})` });
      }
      feed.failure = new Error(`no progress for ${this.#opts.silentStreamMs / 1000} s while ${what}`);
      feed.wake();
    } catch (err) {
      this.#log.warn({ err }, 'consumer: checking its partitions\' progress failed; checking again later');
    }
  }

  /** Why this consumer is stuck, when it has been without success for CONSUMER_STUCK_AFTER_MS; else undefined. */
  stuck(now = Date.now()): string | undefined {
    // Partitions standing still with records waiting are reported at once (they were checked over a whole
    // silentStreamMs already), naming the group, until they move.
    if (this.#stalls.size > 0) {
      const first = Math.min(...[...this.#stalls.values()].map((s) => s.since));
      return `consumer ${this.#opts.groupId}: no progress on ${[...this.#stalls.values()].map((s) => s.what).join(', ')} for ${Math.round((now - first) / 1000 + this.#opts.silentStreamMs / 1000)} s (its stream was reopened)`;
    }
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
          const key = readingKey(r);
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
      const key = readingKey(m);
      const position = this.#positions.get(key);
      if (position === undefined) this.#positions.set(key, { topic: m.topic, partition: m.partition, next: m.offset + 1n, committed: -1n });
      else position.next = m.offset + 1n;
    }
    // A stalled partition that has moved again is no longer reported (readiness recovers with the records, not at the next check).
    if (this.#stalls.size > 0) {
      for (const [key, stall] of this.#stalls) if ((this.#positions.get(key)?.next ?? -1n) > stall.next) this.#stalls.delete(key);
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
        const p = this.#positions.get(readingKey(o));
        if (p !== undefined && o.offset > p.committed) p.committed = o.offset;
      }
    } catch (err) {
      // A rebalance moved a partition away, or the broker is gone: the partition's next owner re-processes
      // from the last commit, which is safe because every effect is idempotent.
      this.#log.warn({ err, offsets: offsets.map((o) => `${o.topic}/${o.partition}@${o.offset}`) }, 'offset commit failed');
    }
  }

  /**
   * Stops: the batch in hand is finished (and committed) if it can be by `deadline`; past it, the consumer
   * closes anyway and the batch is read again by the partition's next owner (every effect is idempotent).
   */
  async stop(deadline = Date.now() + STOP_WAIT_MS): Promise<void> {
    consumersOf.get(this.#kafka)?.delete(this);
    this.#stopping.abort();
    this.#feed?.stream.resume();
    this.#feed?.wake();
    const drained = this.#done?.catch((err) => this.#log.warn({ err }, 'consumer stopped with an unfinished batch'));
    await withDeadline(drained ?? Promise.resolve(), Math.max(0, deadline - Date.now())).catch(() =>
      this.#log.warn({ still: this.#trouble || 'opening its stream' }, 'consumer: the deadline passed before its loop finished; closing anyway'));
    // Each close within what is left of the deadline (at least a moment): a fetch or leave stuck at a lost
    // broker must not hold the shutdown (issue 33: every SIGTERM after a broker loss timed out).
    const left = () => Math.min(COMMIT_DEADLINE_MS, Math.max(250, deadline - Date.now()));
    const feed = this.#feed;
    if (feed) await withDeadline(feed.stream.close(), left()).catch(() => feed.stream.destroy());
    const closed = new Promise<void>((resolve, reject) => this.#consumer.close(true, (err) => (err ? reject(err) : resolve())));
    await withDeadline(closed, left()).catch((err) => this.#log.warn({ err }, 'consumer did not close cleanly'));
  }
}


function isOffsetOutOfRange(err: unknown): boolean {
  const e = err as { apiId?: string; errors?: unknown[]; aggregateErrors?: unknown[] } | undefined;
  if (e === undefined || e === null) return false;
  if (e.apiId === 'OFFSET_OUT_OF_RANGE') return true;
  return [...(e.errors ?? []), ...(e.aggregateErrors ?? [])].some(isOffsetOutOfRange);
}
