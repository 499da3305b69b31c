// The one relay from the event outbox to security.events, for every module that stores events. One runs
// per service instance (app/service.ts). It publishes when woken (a producer's transaction committed) and
// sweeps on a timer for what a crashed instance left behind. Several instances' relays share the outbox:
// claims skip what another relay holds, so the normal path publishes each event once. A crash between the
// broker's acknowledgement and the claim's commit publishes those events again, with the same ids. The
// loop itself (wakes, sweeps, backoff, the bounded stop) is the platform's outbox publisher.
import type { RelaySignal } from '../platform/context.ts';
import type { KafkaProducer } from '../platform/kafka/index.ts';
import type { Logger } from '../platform/log.ts';
import { counter, gauge, histogram } from '../platform/metrics.ts';
import { OutboxPublisher, type OutboxSource } from '../platform/outbox-publisher.ts';
import type { Pool } from '../platform/postgres.ts';
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
/** A failed turn is retried after 250 ms, doubling to 30 s. */
const BACKOFF = { firstMs: 250, maxMs: 30_000 };

/** The event outbox as the publisher sees it: one send per claim, in stored order, so a batch's events reach each partition in that order. */
function eventOutbox(opts: Required<RelayOptions>): OutboxSource<PendingEvent> {
  return {
    claim: (client, woken) => claimPending(client, woken ? 0 : opts.sweepMinAgeMs, opts.batchSize),
    records: (pending) => pending.map((p) => eventRecord(opts.codec, opts.topic, p.event, p.change, p.revision)),
    sent: (client, pending) => forgetPublished(client, pending.map((p) => p.event.id)),
    committed: (pending, sendingSeconds) => {
      for (const p of pending) {
        published.inc({ type: p.event.type });
        publishLag.observe(p.ageSeconds + sendingSeconds);
      }
    },
  };
}

export class EventRelay implements RelaySignal {
  readonly #publisher: OutboxPublisher<PendingEvent>;

  constructor(options: RelayOptions) {
    const opts = { ...DEFAULTS, ...options };
    this.#publisher = new OutboxPublisher({
      name: 'event relay', items: 'events', outbox: 'event_outbox',
      pool: opts.pool, producer: opts.producer, log: opts.log, source: eventOutbox(opts),
      sweepEveryMs: opts.sweepEveryMs, batchSize: opts.batchSize, backoff: BACKOFF, stuckAfterMs: opts.stuckAfterMs, failedTurns: failures,
      housekeeping: async () => oldestPending.set(await oldestPendingSeconds(opts.pool)),
    });
  }

  /** Starts the loop; its first turn publishes everything pending (what this or another instance left behind). */
  start(): void {
    // Without a NOTIFY channel nothing in start() awaits or throws: the loop is running when this returns.
    void this.#publisher.start();
  }

  /** After a commit that stored events: publish now rather than at the next sweep. Cheap; wakes coalesce. */
  wake(): void {
    this.#publisher.wake();
  }

  /**
   * Finishes the turn in progress, and one more if a wake came before the stop, until `deadline` (epoch ms;
   * default 10 s from now); a batch still unacknowledged then stays in the outbox, logged, for the next start.
   */
  stop(deadline?: number): Promise<void> {
    return this.#publisher.stop(deadline);
  }

  /** For /readyz: rejects while a turn has been running or failing for longer than `stuckAfterMs`. */
  check(): Promise<void> {
    return this.#publisher.check();
  }
}
