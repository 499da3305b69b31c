// Tells the copies of an event on security.events from the record that first carried it
// (docs/events-and-delivery.md "Each event once: copies on the topic"). The topic is at-least-once: a relay
// that dies after the broker took a batch and before it marked the batch published leaves it in the outbox,
// and the next relay turn publishes it again, with the same ids. Every instance must judge a record alike,
// live or in a resume read from Kafka, so the judgement depends on the topic alone: a record is a copy when a
// record of the same event id with the same or a higher revision (record header, events/event-record.ts) lies
// fewer than `span` offsets before it on its partition (the key is the event id, so all copies of an event
// share one partition). A higher revision is an operator's change, not a copy: it is sent. Pure.
import type { InRecord } from '../../platform/kafka/index.ts';
import { Fifo } from './send-queue.ts';

/** What identifies a record's event: its key (the event id) and its revision header. */
export interface Identity {
  id: string | undefined;
  revision: number;
}

export function identityOf(record: Pick<InRecord, 'key' | 'headers'>): Identity {
  const revision = Number(record.headers.revision ?? 0);
  return { id: record.key || undefined, revision: Number.isSafeInteger(revision) ? revision : 0 };
}

interface Lane {
  /** Offsets and ids of the records in the window, oldest first (two lists of plain values: no object per record). */
  offsets: Fifo<number>;
  ids: Fifo<string>;
  /** Per id in the window, the offset of its latest record... */
  latest: Map<string, number>;
  /** ...and its highest revision when above 0 (operator changes are few). */
  revisions: Map<string, number>;
}

export class CopyWindow {
  readonly #lanes = new Map<number, Lane>();
  /** How many offsets back on a partition a record looks for an earlier copy. */
  readonly span: number;

  constructor(span: number) {
    this.span = span;
  }

  /**
   * Whether the record at `offset` of `partition` is a copy of one before it; remembered either way. Each
   * partition's records must come in offset order (gaps are fine).
   */
  isCopy(partition: number, offset: number, { id, revision }: Identity): boolean {
    if (id === undefined || this.span <= 0) return false;
    const lane = this.#lane(partition);
    this.#forget(lane, offset - this.span);
    const seen = lane.latest.has(id) ? (lane.revisions.get(id) ?? 0) : undefined;
    lane.latest.set(id, offset);
    if (revision > (seen ?? 0)) lane.revisions.set(id, revision);
    lane.offsets.push(offset);
    lane.ids.push(id);
    return seen !== undefined && seen >= revision;
  }

  #lane(partition: number): Lane {
    let lane = this.#lanes.get(partition);
    if (!lane) this.#lanes.set(partition, (lane = { offsets: new Fifo(), ids: new Fifo(), latest: new Map(), revisions: new Map() }));
    return lane;
  }

  /** Drops what lies before `from`: an id whose latest record goes is forgotten. */
  #forget(lane: Lane, from: number): void {
    for (let oldest = lane.offsets.peek(); oldest !== undefined && oldest < from; oldest = lane.offsets.peek()) {
      lane.offsets.shift();
      const id = lane.ids.shift() as string;
      if (lane.latest.get(id) !== oldest) continue;
      lane.latest.delete(id);
      lane.revisions.delete(id);
    }
  }
}
