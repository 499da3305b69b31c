// Which missed events a resuming client gets (docs/events-and-delivery.md "Resume"): of the events matching
// its filters between its handle and the hub's position, the newest REPLAY_LIMIT, in append order; the
// older ones form the gap the client is told about. Fed one record at a time, so a long range read from
// Kafka never holds more than twice the limit in memory.
import { appendOrder, type StreamRecord } from './stream-record.ts';

/** Spec "WebSocket stream" rule 4: the server buffers up to 1000 messages across a short disconnect. */
export const REPLAY_LIMIT = 1000;

/** The missed events that are not replayed. */
export interface Gap {
  /** Matching events counted and not replayed. */
  events: number;
  /** Records of the range that were never read (past the scan budget, or deleted by retention); unknown matches. */
  unscannedRecords: number;
  /** Earliest and latest event `timestamp` among the counted events (ms), when there are any. */
  firstEventAt?: number;
  lastEventAt?: number;
}

export interface Selection {
  /** In the order they are sent. */
  replay: StreamRecord[];
  gap?: Gap;
  /** Per partition, where the replay's handles start: past every record of the gap. */
  start: number[];
}

export class ReplaySelection {
  readonly #limit: number;
  readonly #start: number[];
  #kept: StreamRecord[] = [];
  #gap: Gap = { events: 0, unscannedRecords: 0 };

  constructor(from: readonly number[], limit = REPLAY_LIMIT) {
    this.#start = [...from];
    this.#limit = limit;
  }

  /** A record of the range that matches the client's filters. */
  add(record: StreamRecord): void {
    this.#kept.push(record);
    if (this.#kept.length >= 2 * this.#limit) this.#trim();
  }

  /** `count` records of `partition` below `until` were not read: they are part of the gap, matching or not. */
  unscanned(partition: number, count: number, until: number): void {
    if (count <= 0) return;
    this.#gap.unscannedRecords += count;
    this.#start[partition] = Math.max(this.#start[partition] ?? 0, until);
  }

  result(): Selection {
    this.#trim();
    const gap = this.#gap.events > 0 || this.#gap.unscannedRecords > 0 ? { ...this.#gap } : undefined;
    return { replay: this.#kept, start: [...this.#start], ...(gap ? { gap } : {}) };
  }

  /** Sorts what is kept and moves all but the newest `limit` into the gap. */
  #trim(): void {
    this.#kept.sort(appendOrder);
    const excess = this.#kept.length - this.#limit;
    if (excess <= 0) return;
    for (const record of this.#kept.slice(0, excess)) {
      const at = Date.parse(record.event.timestamp);
      this.#gap.events++;
      this.#gap.firstEventAt = Math.min(this.#gap.firstEventAt ?? at, at);
      this.#gap.lastEventAt = Math.max(this.#gap.lastEventAt ?? at, at);
      this.#start[record.partition] = Math.max(this.#start[record.partition] ?? 0, record.offset + 1);
    }
    this.#kept = this.#kept.slice(excess);
  }
}
