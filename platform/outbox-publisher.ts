// The one loop that publishes an outbox table to Kafka: the event relay (events/relay.ts) and the gate and
// drone command senders (processors/gate/command-sender.ts, drones/command-sender.ts) are this loop with
// their own claim, records and bookkeeping (an `OutboxSource`). A turn claims a batch in a transaction
// (the source's FOR UPDATE SKIP LOCKED, so publishers of several instances share the outbox), sends it
// in one send, and records the outcome in the same transaction, so rows leave the outbox only once Kafka
// acknowledged them; a crash between the acknowledgement and the commit publishes them again, with the
// same keys. The loop works when woken (a commit in this process, or a NOTIFY from any instance) and
// sweeps on a timer for what nobody woke it for; a failed turn is retried whole after a backoff.
//
// stop() is bounded: it finishes the turn in flight (and one more if a wake came before it) until its
// deadline, then abandons that turn. The batch's send is left to the producer, the claiming transaction
// rolls back (its locks go, its client returns to the pool, so pool.end() is not held), the rows stay in
// the outbox for the next start, and a log line says how many rows of which outbox were left.
import type { KafkaProducer, OutRecord } from './kafka/index.ts';
import type { Logger } from './log.ts';
import { NotifyListener } from './notify-listener.ts';
import { abandonedNote, backoffMs, drainGoesOn, nextStep, stuckReason, type Backoff } from './outbox-turns.ts';
import { inTransaction, type Pool, type PoolClient } from './postgres.ts';
import { WakeSignal } from './wake-signal.ts';

/** What differs between outboxes: the table, its claim, its records and what is written once they are sent. */
export interface OutboxSource<Row> {
  /**
   * Locks the rows of one batch for the rest of the transaction, in the order they must reach each
   * partition. `woken`: a commit asked for this turn (rather than the sweep).
   */
  claim(client: PoolClient, woken: boolean): Promise<Row[]>;
  /** The Kafka records of claimed rows, in their order. */
  records(rows: Row[]): OutRecord[];
  /** Kafka acknowledged the rows: delete or mark them, in the claiming transaction. */
  sent(client: PoolClient, rows: Row[]): Promise<void>;
  /**
   * Kafka did not acknowledge the rows (an error, or no answer within `sendTimeoutMs`): record that on them
   * (each due again after its own delay), in the claiming transaction, and the turn goes on. Without it the
   * turn fails: it rolls back, the rows stay as they were, and the loop retries after its backoff.
   */
  unsent?(client: PoolClient, rows: Row[], err: Error): Promise<void>;
  /** After a commit that sent `rows`, once per batch, with the seconds from the claim to the commit. */
  committed?(rows: Row[], sendingSeconds: number): void;
}

/** How one claimed batch is sent: shared by the loop and by a caller that claims a batch itself (a gate override). */
export interface ClaimedSender<Row> {
  producer: KafkaProducer;
  source: OutboxSource<Row>;
  /** How long a send waits for Kafka's acknowledgement before it counts as unsent; none: the producer's delivery timeout. */
  sendTimeoutMs?: number;
}

export interface OutboxPublisherOptions<Row> extends ClaimedSender<Row> {
  /** What publishes, for log lines and /readyz: "event relay", "gate command sender". */
  name: string;
  /** What a row is, plural, for log lines: "events", "commands". */
  items: string;
  /** The outbox table, for the log line of a batch abandoned at stop. */
  outbox: string;
  pool: Pool;
  log: Logger;
  /** The NOTIFY channel of commits that wrote rows (on any instance); none: woken in this process only. */
  channel?: string;
  /** How often the outbox is swept without a wake. */
  sweepEveryMs: number;
  /** A batch of this many rows or more may have left rows behind: the drain claims again. */
  batchSize: number;
  /** The pause after a failed turn (the turn is then retried whole). */
  backoff: Backoff;
  /** Runs after a successful turn at most this often (default: sweepEveryMs), and listens again if the NOTIFY connection was lost. */
  housekeepingEveryMs?: number;
  /** Outside any transaction: a gauge of the oldest row. A failure fails the turn. */
  housekeeping?(): Promise<void>;
  /** A turn running or failing for longer than this makes `check()` reject; none: never. */
  stuckAfterMs?: number;
  /** Counted once per failed turn. */
  failedTurns?: { inc(): void };
  /** How long stop() waits for the turn in flight when it is given no deadline. */
  stopWithinMs?: number;
}

const DEFAULT_STOP_WITHIN_MS = 10_000;

/** Why a turn ended without an outcome: its publisher stopped at the deadline. */
class Abandoned extends Error {
  constructor() {
    super('stopped at the deadline; the batch stays in the outbox');
  }
}

/**
 * Sends claimed rows in one send and records the outcome in the claiming transaction: true once Kafka
 * acknowledged them, false when the source recorded them unsent. Throws when the send failed and the
 * source has no `unsent`, or when `stopped` rejects first.
 */
export async function sendClaimed<Row>(to: ClaimedSender<Row>, client: PoolClient, rows: Row[], stopped?: Promise<never>): Promise<boolean> {
  const error = await outcomeOf(to.producer.send(to.source.records(rows)), to.sendTimeoutMs, stopped);
  if (error === undefined) {
    await to.source.sent(client, rows);
    return true;
  }
  if (to.source.unsent === undefined) throw error;
  await to.source.unsent(client, rows, error);
  return false;
}

/** undefined once `send` resolved (within `timeoutMs`, when given); else why not. Rejects when `stopped` does first. */
async function outcomeOf(send: Promise<void>, timeoutMs: number | undefined, stopped: Promise<never> | undefined): Promise<Error | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const racers: Promise<Error | undefined>[] = [send.then(() => undefined, (err: unknown) => (err instanceof Error ? err : new Error(String(err))))];
  if (timeoutMs !== undefined) racers.push(new Promise<Error>((resolve) => (timer = setTimeout(() => resolve(new Error(`not acknowledged within ${timeoutMs} ms`)), timeoutMs))));
  if (stopped !== undefined) racers.push(stopped);
  try {
    return await Promise.race(racers);
  } finally {
    clearTimeout(timer);
  }
}

export class OutboxPublisher<Row> {
  readonly #o: OutboxPublisherOptions<Row>;
  /** Woken by a commit that wrote rows (and set at start, and after a failure): the next turn takes everything due. */
  readonly #signal = new WakeSignal();
  readonly #listener: NotifyListener | undefined;
  #loop: Promise<void> | undefined;
  /** When the current unfinished turn began; undefined while idle. A failing turn stays unfinished until one succeeds. */
  #busySince: number | undefined;
  #lastError: Error | undefined;
  /** Rows of the batch being sent; 0 while none is. */
  #sending = 0;
  /** Ends the send of the batch in flight, at the stop's deadline. One per batch: a promise raced by every batch would keep each race's reaction. */
  #abandonBatch: ((err: Error) => void) | undefined;
  #abandoned = false;

  constructor(options: OutboxPublisherOptions<Row>) {
    this.#o = options;
    // Lost, the sweep covers the gap and housekeeping listens again.
    this.#listener = options.channel === undefined
      ? undefined
      : new NotifyListener({ pool: options.pool, log: options.log, channel: options.channel, what: `${options.name} listener`, onNotify: () => this.wake() });
  }

  /** Listens for the NOTIFY (when it has a channel) and starts the loop; its first turn takes everything due. */
  async start(): Promise<void> {
    if (this.#listener) await this.#listener.ensure();
    this.#loop ??= this.#run();
  }

  /** Publish now rather than at the next sweep. Cheap; wakes coalesce. */
  wake(): void {
    this.#signal.wake();
  }

  /** Rows of the batch being sent now (0: none); what a stop at this moment would leave in the outbox. */
  get sending(): number {
    return this.#sending;
  }

  /**
   * Finishes the turn in progress, and one more if a wake came before the stop, but only until `deadline`
   * (epoch ms; default `stopWithinMs` from now): then the turn is abandoned, its rows left in the outbox,
   * and a log line says how many of which outbox. Never waits longer, whatever Kafka or Postgres do.
   */
  async stop(deadline = Date.now() + (this.#o.stopWithinMs ?? DEFAULT_STOP_WITHIN_MS)): Promise<void> {
    this.#signal.stop();
    // Abandoned once (and logged once): a later stop has nothing more to wait for.
    if (this.#loop !== undefined && !this.#abandoned && !(await finishedBy(this.#loop, deadline))) {
      this.#abandoned = true;
      const note = abandonedNote(this.#o.name, this.#o.outbox, this.#sending);
      this.#o.log.warn(note.fields, note.message);
      this.#abandonBatch?.(new Abandoned());
    }
    if (this.#listener) await finishedBy(this.#listener.stop(), deadline);
  }

  /** For /readyz: rejects while a turn has been running or failing for longer than `stuckAfterMs`. */
  async check(): Promise<void> {
    const reason = stuckReason(this.#o.name, this.#busySince, Date.now(), this.#o.stuckAfterMs, this.#lastError);
    if (reason !== undefined) throw new Error(reason);
  }

  /** Claims and sends batches until one comes back short (or the publisher stops); returns the rows claimed. */
  async drain(woken = true): Promise<number> {
    let total = 0;
    for (;;) {
      const claimed = await this.#batch(woken);
      total += claimed;
      if (!drainGoesOn(claimed, this.#o.batchSize, this.#signal.stopping)) return total;
    }
  }

  async #run(): Promise<void> {
    const signal = this.#signal;
    const housekeepingEveryMs = this.#o.housekeepingEveryMs ?? this.#o.sweepEveryMs;
    let failed = 0;
    let nextSweep = Date.now();
    let nextHousekeeping = Date.now();
    for (;;) {
      if (this.#abandoned) return;
      let step = nextStep(signal.wanted, signal.stopping);
      if (step === 'pause') {
        await signal.pause(nextSweep - Date.now());
        // A sweep is a turn nobody asked for.
        step = signal.stopping ? nextStep(signal.wanted, true) : 'turn';
      }
      if (step === 'end') return;
      const woken = signal.take();
      this.#busySince ??= Date.now();
      try {
        await this.drain(woken);
        if (Date.now() >= nextSweep) nextSweep = Date.now() + this.#o.sweepEveryMs;
        if (Date.now() >= nextHousekeeping) {
          await this.#o.housekeeping?.();
          await this.#listener?.ensure();
          nextHousekeeping = Date.now() + housekeepingEveryMs;
        }
        this.#busySince = undefined;
        this.#lastError = undefined;
        failed = 0;
      } catch (err) {
        if (err instanceof Abandoned || this.#abandoned) return;
        this.#o.failedTurns?.inc();
        this.#lastError = err as Error;
        this.#o.log.warn({ err }, `${this.#o.name} turn failed; the ${this.#o.items} stay in the outbox`);
        // Retried in full: what this turn failed to publish may have been a wake's.
        signal.want();
        if (signal.stopping) return;
        await signal.pause(backoffMs(failed++, this.#o.backoff), false);
        // Stopped during the backoff: the failing rows wait in the outbox for the next start, rather than
        // holding the stop with another try at what just failed (a lost broker).
        if (signal.stopping) return;
      }
    }
  }

  /** One batch: claim, send, record, commit; the rows claimed. */
  async #batch(woken: boolean): Promise<number> {
    const began = performance.now();
    const rows = await inTransaction(this.#o.pool, async (client) => {
      const claimed = await this.#o.source.claim(client, woken);
      if (claimed.length === 0) return claimed;
      if (this.#abandoned) throw new Abandoned();
      const stopped = new Promise<never>((_, reject) => (this.#abandonBatch = reject));
      this.#sending = claimed.length;
      try {
        await sendClaimed(this.#o, client, claimed, stopped);
      } finally {
        this.#sending = 0;
        this.#abandonBatch = undefined;
      }
      return claimed;
    });
    if (rows.length > 0) this.#o.source.committed?.(rows, (performance.now() - began) / 1000);
    return rows.length;
  }
}

/** Whether `work` settled (either way) by `deadline`. */
async function finishedBy(work: Promise<unknown>, deadline: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()))));
  try {
    return await Promise.race([work.then(() => true, () => true), late]);
  } finally {
    clearTimeout(timer);
  }
}
