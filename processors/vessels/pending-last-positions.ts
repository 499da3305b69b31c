// Each vessel's newest stored position, waiting to be written to `vessels`. A vessel reports every 2 to
// 10 seconds under way, so writing its last position once per batch rewrote the same rows over and over
// (one upsert per vessel per batch, as costly as the batch's inserts); gathered over a second, a busy
// port's thousands of reports become one upsert per vessel. Until written, the records they came from
// are held: offsets are not committed past them, so a crash re-reads them and nothing is lost.
import type { HeldRecord } from '../../platform/kafka/index.ts';
import type { PositionRow } from './position-rows.ts';

export interface FlushPolicy {
  /** Write once the oldest waiting row has waited this long. */
  maxAgeMs: number;
  /** Write at once when this many vessels wait. */
  maxVessels: number;
}

export const DEFAULT_FLUSH: FlushPolicy = { maxAgeMs: 1_000, maxVessels: 20_000 };

export class PendingLastPositions {
  readonly #waiting = new Map<number, { row: PositionRow; from: HeldRecord }>();
  /** When the oldest waiting row was added (ms, caller's clock); undefined while none waits. */
  #since: number | undefined;

  constructor(private readonly policy: FlushPolicy = DEFAULT_FLUSH) {}

  get size(): number {
    return this.#waiting.size;
  }

  /**
   * Keeps `row` if it is its vessel's newest (latest event time; among equal times the later added);
   * `from` is the record it was read from, held until the row is written.
   */
  add(row: PositionRow, from: HeldRecord, now: number): void {
    const known = this.#waiting.get(row.mmsi);
    if (known && row.reportedAt < known.row.reportedAt) return;
    this.#waiting.set(row.mmsi, { row, from });
    this.#since ??= now;
  }

  /** Whether the waiting rows should be written now. */
  due(now: number): boolean {
    return this.#since !== undefined && (now - this.#since >= this.policy.maxAgeMs || this.#waiting.size >= this.policy.maxVessels);
  }

  /** The waiting rows, one per vessel, sorted by MMSI (concurrent writers lock `vessels` rows in one order). */
  rows(): PositionRow[] {
    return [...this.#waiting.values()].map((w) => w.row).sort((a, b) => a.mmsi - b.mmsi);
  }

  /** Forgets the rows `rows()` returned, once they are written. */
  written(rows: readonly PositionRow[]): void {
    for (const row of rows) {
      if (this.#waiting.get(row.mmsi)?.row === row) this.#waiting.delete(row.mmsi);
    }
    if (this.#waiting.size === 0) this.#since = undefined;
  }

  /** The oldest record still waiting, per partition: what the consumer must not commit past. */
  held(): HeldRecord[] {
    const oldest = new Map<string, HeldRecord>();
    for (const { from } of this.#waiting.values()) {
      const key = `${from.topic}/${from.partition}`;
      const known = oldest.get(key);
      if (known === undefined || from.offset < known.offset) oldest.set(key, from);
    }
    return [...oldest.values()];
  }
}
