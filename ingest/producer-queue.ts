// The ingest producer: collects records into batches (sent at N records or T ms), keeps a bounded number
// of batches in flight, retries a failed batch until Kafka acknowledges it, and tells sources to pause
// while too many records wait. Memory is bounded by `maxQueuedRecords` plus what a paused source has
// already read. Nothing accepted is dropped silently: a record Kafka refuses for good (too large) is
// replaced by its dead letter, or dropped and counted when that is refused too, instead of being retried
// forever; a queue that cannot make progress says so (`stalledMs`, /readyz); and at shutdown what Kafka
// has not acknowledged by the deadline is logged and counted.
import { EventEmitter, once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { RecordsRefusedError } from '../platform/errors.ts';
import type { OutRecord } from '../platform/kafka/index.ts';
import type { Logger } from '../platform/log.ts';
import { ingestMetrics } from './metrics.ts';

export interface ProducerQueueOptions {
  /** Resolves when every record is acknowledged (KafkaProducer.send). */
  send: (records: OutRecord[]) => Promise<void>;
  maxBatchRecords: number;
  lingerMs: number;
  maxInFlight: number;
  /** Above this many unacknowledged records `writable` is false until half of them are acknowledged. */
  maxQueuedRecords: number;
  log: Logger;
  /** Delay before retry number `attempt` (1, 2, ...) of a failed batch. */
  retryDelayMs?: (attempt: number) => number;
  /**
   * What to send instead of a record Kafka refused for good (`code`: MESSAGE_TOO_LARGE, ...): its dead
   * letter. Undefined (or no function): the record is dropped. A replacement that is refused is dropped.
   * Either way it is logged and counted in pss_ingest_refused_total.
   */
  replaceRefused?: (record: OutRecord, code: string) => OutRecord | undefined;
  /** Clock (ms) for the age of unacknowledged batches; performance.now by default. */
  now?: () => number;
}

/** Doubling from 100 ms, capped at 5 s: a broker that comes back is used within seconds. */
export function defaultRetryDelayMs(attempt: number): number {
  return Math.min(5_000, 100 * 2 ** Math.min(attempt - 1, 6));
}

interface Batch {
  records: OutRecord[];
  /** Sealed by the linger timer: send even though it is not full. */
  due: boolean;
  /** When its first record was queued (queue clock). */
  since: number;
  promise: Promise<void>;
  resolve: () => void;
  reject: (err: Error) => void;
}

function newBatch(since: number): Batch {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { records: [], due: false, since, promise: quiet(promise), resolve, reject };
}

/** Streaming callers do not wait for acknowledgements; only an abort rejects, and that must not crash. */
function quiet<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

const ABORTED = 'ingest producer aborted before Kafka acknowledged these records';

export class ProducerQueue extends EventEmitter {
  readonly #opts: Required<ProducerQueueOptions>;
  #open: Batch | undefined;
  readonly #ready: Batch[] = [];
  /** Every batch not yet acknowledged or given up, oldest first (a Set keeps insertion order). */
  readonly #unacknowledged = new Set<Batch>();
  /** Replacements (dead letters) of refused records: never replaced again. */
  readonly #replacements = new WeakSet<OutRecord>();
  #inFlight = 0;
  #queued = 0;
  #timer: NodeJS.Timeout | undefined;
  #draining = false;
  #aborted = false;
  #giveUpTimer: NodeJS.Timeout | undefined;
  #giveUpAtMs = Number.POSITIVE_INFINITY;

  constructor(opts: ProducerQueueOptions) {
    super();
    // Every source and every waiting HTTP request listens for 'drain'.
    this.setMaxListeners(0);
    this.#opts = { retryDelayMs: defaultRetryDelayMs, replaceRefused: () => undefined, now: () => performance.now(), ...opts };
  }

  /** Records held and not yet acknowledged. */
  get queued(): number {
    return this.#queued;
  }

  /** How long the oldest unacknowledged batch has waited (ms); 0 when everything is acknowledged. */
  get stalledMs(): number {
    const oldest = this.#unacknowledged.values().next();
    return oldest.done ? 0 : Math.max(0, this.#opts.now() - oldest.value.since);
  }

  /** False while the producer is behind: streaming sources pause, HTTP waits (`addWhenRoom`). */
  get writable(): boolean {
    return !this.#draining;
  }

  /**
   * Queues records; the promise resolves when Kafka has acknowledged all of them. Records are never
   * refused: callers check `writable` (or use `addWhenRoom`) before reading more input.
   */
  add(records: OutRecord[]): Promise<void> {
    if (this.#aborted) {
      if (records.length > 0) this.#undelivered(records.length, 'records handed in after the ingest producer closed or gave up; not sent');
      return quiet(Promise.reject(new Error('ingest producer is closed')));
    }
    if (records.length === 0) return Promise.resolve();
    const touched: Batch[] = [];
    const max = this.#opts.maxBatchRecords;
    for (const record of records) {
      const batch = (this.#open ??= this.#newBatch());
      if (touched[touched.length - 1] !== batch) touched.push(batch);
      batch.records.push(record);
      if (batch.records.length >= max) this.#seal();
    }
    this.#queued += records.length;
    ingestMetrics.queued.set(this.#queued);
    if (this.#queued >= this.#opts.maxQueuedRecords) this.#draining = true;
    this.#pump();
    if (this.#open !== undefined && this.#timer === undefined) this.#startLinger();
    return touched.length === 1 ? (touched[0] as Batch).promise : quiet(Promise.all(touched.map((b) => b.promise)).then(() => undefined));
  }

  /**
   * For callers that hold all their records at once (HTTP requests): waits until the records fit, then
   * queues them in the same synchronous step, so no other waiter can slip in between the check and the
   * add. They fit while the queue is writable and `queued + n` stays within `maxQueuedRecords` (or
   * nothing is queued, so a request larger than the limit is not locked out). Every acknowledgement
   * wakes every waiter, and each re-checks: one 'drain' no longer lets all waiting requests in at once.
   * Not FIFO: a large request can be overtaken by small ones; the caller's `signal` (the HTTP ack
   * timeout) bounds its wait. Rejects with the signal's reason when it aborts; nothing is queued then.
   * Resolves with the acknowledgement promise wrapped in an object (an awaited promise would flatten).
   */
  async addWhenRoom(records: OutRecord[], signal?: AbortSignal): Promise<{ acknowledged: Promise<void> }> {
    signal?.throwIfAborted();
    if (records.length === 0) return { acknowledged: Promise.resolve() };
    while (!this.#hasRoomFor(records.length)) await once(this, 'sent', signal ? { signal } : {});
    return { acknowledged: this.add(records) };
  }

  #hasRoomFor(n: number): boolean {
    if (this.#aborted) return true; // add() rejects at once; do not wait for acknowledgements that never come
    return !this.#draining && (this.#queued === 0 || this.#queued + n <= this.#opts.maxQueuedRecords);
  }

  /** Sends what is held now and resolves when everything queued so far is acknowledged. */
  async flush(): Promise<void> {
    const pending = [...this.#ready, ...(this.#open ? [this.#open] : [])].map((b) => b.promise);
    if (this.#open) this.#open.due = true;
    this.#pump();
    while (this.#inFlight > 0 || pending.length > 0) {
      if (this.#inFlight > 0 && pending.length === 0) await once(this, 'sent');
      else await Promise.all(pending.splice(0));
    }
  }

  /**
   * Shutdown: from now on, whatever is still unacknowledged at `deadlineMs` (epoch ms) is given up: logged
   * with its count, counted in pss_ingest_undelivered_total, and its promises reject (so a source waiting
   * for an acknowledgement stops waiting and does not commit its input). A later call can only bring the
   * deadline forward.
   */
  giveUpAt(deadlineMs: number): void {
    if (this.#aborted || deadlineMs >= this.#giveUpAtMs) return;
    clearTimeout(this.#giveUpTimer);
    this.#giveUpAtMs = deadlineMs;
    this.#giveUpTimer = setTimeout(() => this.#giveUp(), Math.max(0, deadlineMs - Date.now()));
    this.#giveUpTimer.unref();
  }

  /**
   * Delivers everything queued (including what arrives meanwhile) and resolves once nothing is
   * unacknowledged, or once the deadline of `giveUpAt` gave up on the rest. Later records are refused
   * (and counted as undelivered): the queue is closed.
   */
  async close(): Promise<void> {
    while (this.#queued > 0 && !this.#aborted) {
      const gaveUp = new AbortController();
      await Promise.race([this.flush().catch(() => undefined), once(this, 'gave-up', { signal: gaveUp.signal }).catch(() => undefined)]);
      gaveUp.abort();
    }
    clearTimeout(this.#giveUpTimer);
    this.#aborted = true;
  }

  /** Stops retrying: what is not acknowledged yet is given up and its promises reject. For shutdown timeouts and tests. */
  abort(): void {
    this.#aborted = true;
    clearTimeout(this.#timer);
    clearTimeout(this.#giveUpTimer);
    // In-flight batches too: a send that never answers must not hold their senders past the deadline.
    const err = new Error(ABORTED);
    for (const batch of this.#unacknowledged) batch.reject(err);
    this.#unacknowledged.clear();
    this.#ready.splice(0);
    this.#open = undefined;
  }

  #giveUp(): void {
    if (this.#aborted) return;
    if (this.#queued > 0) this.#undelivered(this.#queued, 'shutdown deadline passed before Kafka acknowledged these records; given up (some in flight may still arrive)');
    this.abort();
    this.emit('gave-up');
  }

  #undelivered(n: number, msg: string): void {
    ingestMetrics.undelivered.inc(n);
    this.#opts.log.error({ records: n }, msg);
  }

  #newBatch(): Batch {
    const batch = newBatch(this.#opts.now());
    this.#unacknowledged.add(batch);
    return batch;
  }

  #reject(batch: Batch, err: Error): void {
    this.#unacknowledged.delete(batch);
    batch.reject(err);
  }

  #seal(): void {
    if (this.#open === undefined) return;
    this.#ready.push(this.#open);
    this.#open = undefined;
  }

  #startLinger(): void {
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (this.#open) this.#open.due = true;
      this.#pump();
    }, this.#opts.lingerMs);
  }

  #pump(): void {
    while (this.#inFlight < this.#opts.maxInFlight && !this.#aborted) {
      let batch = this.#ready.shift();
      if (batch === undefined && this.#open !== undefined && (this.#open.due || this.#opts.lingerMs === 0)) {
        batch = this.#open;
        this.#open = undefined;
      }
      if (batch === undefined) return;
      this.#inFlight++;
      void this.#deliver(batch);
    }
  }

  async #deliver(batch: Batch): Promise<void> {
    const started = performance.now();
    let pending = batch.records;
    for (let attempt = 1; pending.length > 0; ) {
      try {
        await this.#opts.send(pending);
        this.#countTopics(pending);
        pending = [];
      } catch (err) {
        if (err instanceof RecordsRefusedError) {
          // Everything else was acknowledged; only the refused records' replacements are left to send.
          pending = this.#afterRefusal(pending, err);
          continue;
        }
        ingestMetrics.sendFailures.inc();
        const delay = this.#opts.retryDelayMs(attempt);
        this.#opts.log.warn({ err, attempt, delay_ms: delay, records: pending.length }, 'kafka send failed; retrying the batch');
        attempt++;
        await sleep(delay);
        if (this.#aborted) {
          this.#reject(batch, new Error(ABORTED, { cause: err }));
          this.#inFlight--;
          this.emit('sent');
          return;
        }
      }
    }
    ingestMetrics.ackSeconds.observe((performance.now() - started) / 1000);
    this.#inFlight--;
    this.#queued -= batch.records.length;
    ingestMetrics.queued.set(this.#queued);
    this.#unacknowledged.delete(batch);
    batch.resolve();
    this.#pump();
    if (this.#open !== undefined && this.#timer === undefined) this.#startLinger();
    if (this.#draining && this.#queued <= this.#opts.maxQueuedRecords / 2) {
      this.#draining = false;
      this.emit('drain');
    }
    this.emit('sent');
  }

  /** Counts what was acknowledged, logs and counts each refused record, and returns the replacements to send. */
  #afterRefusal(sent: OutRecord[], err: RecordsRefusedError): OutRecord[] {
    const refused = new Map(err.refused.map((r) => [r.index, r.code]));
    this.#countTopics(sent.filter((_, i) => !refused.has(i)));
    const replacements: OutRecord[] = [];
    for (const [index, code] of refused) {
      const record = sent[index] as OutRecord;
      const replacement = this.#replacements.has(record) ? undefined : this.#opts.replaceRefused(record, code);
      const outcome = replacement === undefined ? 'dropped' : 'dead_lettered';
      ingestMetrics.refused.inc({ topic: record.topic, code, outcome });
      this.#opts.log.error({ topic: record.topic, key: record.key?.slice(0, 256), bytes: byteLength(record), code, outcome }, 'kafka refused a record for good; not retried');
      if (replacement !== undefined) {
        this.#replacements.add(replacement);
        replacements.push(replacement);
      }
    }
    return replacements;
  }

  #countTopics(records: OutRecord[]): void {
    const tally = new Map<string, number>();
    for (const r of records) tally.set(r.topic, (tally.get(r.topic) ?? 0) + 1);
    for (const [topic, n] of tally) ingestMetrics.produced.inc({ topic }, n);
  }
}

function byteLength(record: OutRecord): number {
  return typeof record.value === 'string' ? Buffer.byteLength(record.value) : record.value.length;
}
