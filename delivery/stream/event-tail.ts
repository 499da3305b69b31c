// This instance's own reader of security.events: every partition, from the end of the log at start-up, with
// no consumer group (so no instance shares or commits offsets). It hands each record to the hub in append
// order across partitions, keeping each partition's order.
import { setImmediate, setTimeout as sleep } from 'node:timers/promises';
import type { TopicCodec } from '../../platform/codec/index.ts';
import type { InRecord, KafkaPartitionReader } from '../../platform/kafka/index.ts';
import type { Logger } from '../../platform/log.ts';
import { identityOf, type Identity } from './event-copies.ts';
import { streamRecord, type StreamRecord } from './stream-record.ts';

/** A record of the topic as the hub takes it: `record` is absent when its value could not be decoded. */
export interface Tailed {
  partition: number;
  offset: number;
  time: number;
  identity: Identity;
  record?: StreamRecord;
}

/**
 * A fetch answers as soon as there is a record (minBytes 1), so a quiet topic costs no latency; under load
 * the next fetch runs while a batch is dispatched and brings back everything that arrived meanwhile, so
 * batches, and the messages per socket write, grow with the load (docs/benchmarks.md: where the time goes, Stream).
 */
const FETCH = { maxWaitMs: 500, minBytes: 1, maxBytes: 8 * 1024 * 1024 };
const MAX_BACKOFF_MS = 5_000;
const DISPATCH_SLICE = 100;

export class EventTail {
  #position: number[] = [];
  #stopping = new AbortController();
  #loop: Promise<void> | undefined;
  #failing: { since: number; error: string } | undefined;

  constructor(
    private readonly reader: KafkaPartitionReader,
    private readonly codec: TopicCodec,
    private readonly log: Logger,
  ) {}

  /** Finds the end of every partition; returns it, the hub's starting position. */
  async begin(): Promise<number[]> {
    this.#position = (await this.reader.offsets('latest')).map(Number);
    return [...this.#position];
  }

  /** Since when, and why, every read of security.events has failed (the health model's stream_hub); undefined while reads work. */
  get failing(): { since: number; error: string } | undefined {
    return this.#failing;
  }

  /** Reads on until stopped, handing each fetched batch to `take` in order. */
  run(take: (batch: Tailed[]) => void): void {
    this.#loop ??= this.#run(take);
  }

  async #run(take: (batch: Tailed[]) => void): Promise<void> {
    let failures = 0;
    let next: Promise<InRecord[]> | undefined;
    while (!this.#stopping.signal.aborted) {
      try {
        const records = await (next ?? this.#fetch());
        next = undefined;
        if (this.#stopping.signal.aborted) return;
        failures = 0;
        this.#failing = undefined;
        if (records.length === 0) continue;
        const batch = await this.#decode(records);
        for (const t of batch) this.#position[t.partition] = t.offset + 1;
        // The next fetch waits on the broker while this batch is dispatched.
        next = this.#fetch();
        next.catch(() => undefined); // awaited, and its failure handled, on the next turn
        // A large fetch goes out in slices with I/O between them, so sockets flush as it is dispatched: a
        // burst of more records than a client's buffer holds does not look like a slow client.
        for (let i = 0; i < batch.length; i += DISPATCH_SLICE) {
          if (i > 0) await setImmediate();
          take(batch.slice(i, i + DISPATCH_SLICE));
        }
      } catch (err) {
        next = undefined;
        const delay = Math.min(MAX_BACKOFF_MS, 100 * 2 ** failures++);
        this.#failing ??= { since: Date.now(), error: (err as Error).message };
        this.log.warn({ err, retry_in_ms: delay }, 'stream: reading security.events failed; retrying');
        await sleep(delay, undefined, { signal: this.#stopping.signal }).catch(() => undefined);
        await this.#skipDeleted().catch(() => undefined);
      }
    }
    await next?.catch(() => undefined);
  }

  #fetch(): Promise<InRecord[]> {
    return this.reader.fetch(this.#position.map(BigInt), FETCH);
  }

  /** After a long outage the log may have been truncated below our position: carry on from its start. */
  async #skipDeleted(): Promise<void> {
    const earliest = (await this.reader.offsets('earliest')).map(Number);
    earliest.forEach((start, p) => {
      if ((this.#position[p] ?? 0) < start) {
        this.log.warn({ partition: p, from: this.#position[p], to: start }, 'stream: records deleted by retention before this instance read them');
        this.#position[p] = start;
      }
    });
  }

  async #decode(records: InRecord[]): Promise<Tailed[]> {
    const { values } = await this.codec.decode('securityEvents', records);
    const events = new Map(values.map((v) => [v.record, v.value]));
    return inAppendOrder(records).map((r) => {
      const offset = Number(r.offset);
      const event = events.get(r);
      const identity = identityOf(r);
      return { partition: r.partition, offset, time: r.timestamp, identity, ...(event ? { record: streamRecord(r.partition, offset, r.timestamp, event) } : {}) };
    });
  }

  async stop(): Promise<void> {
    this.#stopping.abort();
    await this.#loop;
  }
}

/** Merges the partitions of a fetch by append time, each partition's records staying in offset order. */
export function inAppendOrder<R extends { partition: number; timestamp: number }>(records: readonly R[]): R[] {
  const lanes = new Map<number, R[]>();
  for (const r of records) {
    const lane = lanes.get(r.partition);
    if (lane) lane.push(r);
    else lanes.set(r.partition, [r]);
  }
  const heads = [...lanes.values()].map((lane) => ({ lane, at: 0 }));
  const out: R[] = [];
  while (out.length < records.length) {
    let best: { lane: R[]; at: number } | undefined;
    for (const h of heads) {
      const r = h.lane[h.at];
      if (r !== undefined && (best === undefined || r.timestamp < (best.lane[best.at] as R).timestamp)) best = h;
    }
    out.push((best as { lane: R[]; at: number }).lane[(best as { lane: R[]; at: number }).at++] as R);
  }
  return out;
}
