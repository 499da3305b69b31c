// The ingest producer: collects records into batches (sent at N records or T ms), keeps a bounded number
// of batches in flight, retries a failed batch until Kafka acknowledges it, and tells sources to pause
// while too many records wait. Memory is bounded by `maxQueuedRecords` plus what a paused source has
// already read; nothing accepted is dropped.
import { EventEmitter, once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { OutRecord } from '../platform/kafka.ts';
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
}

/** Doubling from 100 ms, capped at 5 s: a broker that comes back is used within seconds. */
export function defaultRetryDelayMs(attempt: number): number {
  return Math.min(5_000, 100 * 2 ** Math.min(attempt - 1, 6));
}

interface Batch {
  records: OutRecord[];
  /** Sealed by the linger timer: send even though it is not full. */
  due: boolean;
  promise: Promise<void>;
  resolve: () => void;
  reject: (err: Error) => void;
}

function newBatch(): Batch {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { records: [], due: false, promise: quiet(promise), resolve, reject };
}

/** Streaming callers do not wait for acknowledgements; only an abort rejects, and that must not crash. */
function quiet<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

export class ProducerQueue extends EventEmitter {
  readonly #opts: Required<ProducerQueueOptions>;
  #open: Batch | undefined;
  readonly #ready: Batch[] = [];
  #inFlight = 0;
  #queued = 0;
  #timer: NodeJS.Timeout | undefined;
  #draining = false;
  #aborted = false;

  constructor(opts: ProducerQueueOptions) {
    super();
    // Every source and every waiting HTTP request listens for 'drain'.
    this.setMaxListeners(0);
    this.#opts = { retryDelayMs: defaultRetryDelayMs, ...opts };
  }

  /** Records held and not yet acknowledged. */
  get queued(): number {
    return this.#queued;
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
    if (this.#aborted) return quiet(Promise.reject(new Error('ingest producer is closed')));
    if (records.length === 0) return Promise.resolve();
    const touched: Batch[] = [];
    const max = this.#opts.maxBatchRecords;
    for (const record of records) {
      const batch = (this.#open ??= newBatch());
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

  /** Stops retrying: what is not acknowledged yet is given up and its promises reject. For shutdown timeouts and tests. */
  abort(): void {
    this.#aborted = true;
    clearTimeout(this.#timer);
    const err = new Error('ingest producer aborted before Kafka acknowledged these records');
    for (const batch of [...this.#ready.splice(0), ...(this.#open ? [this.#open] : [])]) batch.reject(err);
    this.#open = undefined;
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
    for (let attempt = 1; ; attempt++) {
      try {
        await this.#opts.send(batch.records);
        break;
      } catch (err) {
        ingestMetrics.sendFailures.inc();
        const delay = this.#opts.retryDelayMs(attempt);
        this.#opts.log.warn({ err, attempt, delay_ms: delay, records: batch.records.length }, 'kafka send failed; retrying the batch');
        await sleep(delay);
        if (this.#aborted) {
          batch.reject(new Error('ingest producer aborted before Kafka acknowledged these records', { cause: err }));
          this.#inFlight--;
          this.emit('sent');
          return;
        }
      }
    }
    ingestMetrics.ackSeconds.observe((performance.now() - started) / 1000);
    this.#countTopics(batch.records);
    this.#inFlight--;
    this.#queued -= batch.records.length;
    ingestMetrics.queued.set(this.#queued);
    batch.resolve();
    this.#pump();
    if (this.#open !== undefined && this.#timer === undefined) this.#startLinger();
    if (this.#draining && this.#queued <= this.#opts.maxQueuedRecords / 2) {
      this.#draining = false;
      this.emit('drain');
    }
    this.emit('sent');
  }

  #countTopics(records: OutRecord[]): void {
    const tally = new Map<string, number>();
    for (const r of records) tally.set(r.topic, (tally.get(r.topic) ?? 0) + 1);
    for (const [topic, n] of tally) ingestMetrics.produced.inc({ topic }, n);
  }
}
