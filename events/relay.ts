// The one relay from the event outbox to security.events, for every module that stores events. One runs
// per service instance (app/service.ts). It publishes when woken (a producer's transaction committed) and
// sweeps on a timer for what a crashed instance left behind. Several instances' relays share the outbox:
// claims skip what another relay holds, so the normal path publishes each event once. A crash between the
// broker's acknowledgement and the claim's commit publishes those events again, with the same ids.
import type { RelaySignal } from '../platform/context.ts';
import type { KafkaProducer } from '../platform/kafka/index.ts';
import type { Logger } from '../platform/log.ts';
import { counter, gauge, histogram } from '../platform/metrics.ts';
import { inTransaction, type Pool, type PoolClient } from '../platform/postgres.ts';
import { WakeSignal } from '../platform/wake-signal.ts';
import type { TopicCodec } from '../platform/codec/index.ts';
import { eventRecord } from './event-record.ts';
import { EVENT_TYPES } from './event-types.ts';
import { claimPending, forgetPublished, oldestPendingSeconds, type PendingEvent } from './outbox.ts';

const published = counter('pss_events_published_total', 'Security events put on the security.events topic', ['type'], { type: Object.keys(EVENT_TYPES) });
const publishLag = histogram('pss_events_publish_lag_seconds', 'From storing an event to its acknowledgement on the topic', [], [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5, 30, 120]);
const oldestPending = gauge('pss_events_oldest_pending_seconds', 'Age of the oldest stored event not yet on the topic, at the last sweep');
const failures = counter('pss_events_relay_failures_total', 'Relay turns that failed (the events stay in the outbox and are retried)');

export interface RelayOptions {
  pool: Pool;
  producer: KafkaProducer;
  codec: TopicCodec;
  topic: string;
  log: Logger;
  /** How often the outbox is swept without a wake. */
  sweepEveryMs?: number;
  /** A sweep leaves younger entries to the relay their producer woke, so a batch goes out in one piece. */
  sweepMinAgeMs?: number;
  /** Entries claimed, sent and forgotten per transaction. */
  batchSize?: number;
  /** A turn in progress (or failing) for longer than this makes the relay unhealthy (/readyz). */
  stuckAfterMs?: number;
}

const DEFAULTS = { sweepEveryMs: 5_000, sweepMinAgeMs: 10_000, batchSize: 1_000, stuckAfterMs: 30_000 };
const MAX_BACKOFF_MS = 30_000;

export class EventRelay implements RelaySignal {
  readonly #opts: Required<RelayOptions>;
  /** Woken by a commit that stored events (and set at start, and after a failure): the next turn publishes everything pending. */
  readonly #signal = new WakeSignal();
  #loop: Promise<void> | undefined;
  /** When the current unfinished turn began; undefined while idle. A failing turn stays unfinished until one succeeds. */
  #busySince: number | undefined;
  #lastError: Error | undefined;

  constructor(opts: RelayOptions) {
    this.#opts = { ...DEFAULTS, ...opts };
  }

  /** Starts the loop; its first turn publishes everything pending (what this or another instance left behind). */
  start(): void {
    this.#loop ??= this.#run();
  }

  /** After a commit that stored events: publish now rather than at the next sweep. Cheap; wakes coalesce. */
  wake(): void {
    this.#signal.wake();
  }

  /** Finishes the turn in progress, and one more if a wake came before the stop, then returns. */
  async stop(): Promise<void> {
    this.#signal.stop();
    await this.#loop;
  }

  /** For /readyz: rejects while a turn has been running or failing for longer than `stuckAfterMs`. */
  async check(): Promise<void> {
    const since = this.#busySince;
    if (since !== undefined && Date.now() - since > this.#opts.stuckAfterMs) {
      const why = this.#lastError ? `: ${this.#lastError.message}` : '';
      throw new Error(`the event relay has not finished a turn for ${Math.round((Date.now() - since) / 1000)} s${why}`);
    }
  }

  async #run(): Promise<void> {
    const signal = this.#signal;
    let failed = 0;
    let nextSweep = Date.now();
    while (!signal.stopping || signal.wanted) {
      if (!signal.wanted && !signal.stopping) await signal.pause(nextSweep - Date.now());
      if (signal.stopping && !signal.wanted) return;
      const minAgeMs = signal.take() ? 0 : this.#opts.sweepMinAgeMs;
      this.#busySince ??= Date.now();
      try {
        await this.#drain(minAgeMs);
        if (Date.now() >= nextSweep) {
          oldestPending.set(await oldestPendingSeconds(this.#opts.pool));
          nextSweep = Date.now() + this.#opts.sweepEveryMs;
        }
        this.#busySince = undefined;
        this.#lastError = undefined;
        failed = 0;
      } catch (err) {
        failures.inc();
        this.#lastError = err as Error;
        this.#opts.log.warn({ err }, 'event relay turn failed; the events stay in the outbox');
        // Retried in full: what this turn failed to publish may have been a wake's.
        signal.want();
        if (signal.stopping) return;
        await signal.pause(Math.min(MAX_BACKOFF_MS, 250 * 2 ** failed++), false);
      }
    }
  }

  /** Claims, sends and forgets batches until fewer than a full batch remain. */
  async #drain(minAgeMs: number): Promise<void> {
    for (;;) {
      const claimed = performance.now();
      const sent = await inTransaction(this.#opts.pool, (client) => this.#publishBatch(client, minAgeMs));
      const sending = (performance.now() - claimed) / 1000;
      for (const p of sent) {
        published.inc({ type: p.event.type });
        publishLag.observe(p.ageSeconds + sending);
      }
      if (sent.length < this.#opts.batchSize || this.#signal.stopping) return;
    }
  }

  /** One send per claim, in stored order, so the events of a batch reach each partition in that order. */
  async #publishBatch(client: PoolClient, minAgeMs: number): Promise<PendingEvent[]> {
    const pending = await claimPending(client, minAgeMs, this.#opts.batchSize);
    if (pending.length === 0) return pending;
    await this.#opts.producer.send(pending.map((p) => eventRecord(this.#opts.codec, this.#opts.topic, p.event, p.change, p.revision)));
    await forgetPublished(client, pending.map((p) => p.event.id));
    return pending;
  }
}
