// The newest records this instance has dispatched, kept so a client resuming within them is served from
// memory at once; a client further behind is served from Kafka by offset (replay-reader.ts). A cache:
// losing it (a restart) costs a Kafka read, never an event.
import { Fifo } from './send-queue.ts';
import type { StreamRecord } from './stream-record.ts';

export class ReplayRing {
  readonly #records = new Fifo<StreamRecord>();
  /** Per partition: the first offset from which every record this instance dispatched is still held. */
  readonly #heldFrom: number[];

  constructor(readonly capacity: number, start: readonly number[]) {
    this.#heldFrom = [...start];
  }

  push(record: StreamRecord): void {
    this.#records.push(record);
    while (this.#records.length > this.capacity) {
      const evicted = this.#records.shift() as StreamRecord;
      this.#heldFrom[evicted.partition] = evicted.offset + 1;
    }
  }

  /** Whether every record from `from` up to the hub's position is held (records that were not events count as held). */
  covers(from: readonly number[]): boolean {
    return this.#heldFrom.every((held, p) => (from[p] ?? 0) >= held);
  }

  /** Held records at or after `from` on their partition, in dispatch order. */
  since(from: readonly number[]): StreamRecord[] {
    const out: StreamRecord[] = [];
    for (const record of this.#records) if (record.offset >= (from[record.partition] ?? 0)) out.push(record);
    return out;
  }
}
