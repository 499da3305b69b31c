// The newest position of every vessel this instance has read from ais.positions, and where on the topic it
// came from. Positions are state, not a log: a client that was away needs each vessel's newest position
// since its handle, not every report, so this map (not a ring of records) is what resumes it, whatever
// the length of the absence. Pure: no sockets, no Kafka.

export interface HeldPosition {
  mmsi: number;
  partition: number;
  offset: number;
  lat: number;
  lon: number;
  /** Event time of the report (ms). */
  reportedAt: number;
  /** When this instance read it (ms): vessels silent for the maximum age are forgotten. */
  seenAt: number;
  /** The position as the stream sends it, serialized once for every client. */
  json: string;
}

export class LatestPositions {
  readonly #held = new Map<number, HeldPosition>();
  readonly #pending = new Map<number, HeldPosition>();
  /** Per partition: everything below was flushed (sent to subscribers and held). */
  readonly #flushed: number[];
  /** Per partition: everything below was read. */
  readonly #read: number[];
  /** Per partition: where reading began; a handle below it asks for reports this instance never read. */
  readonly #from: number[];

  constructor(from: readonly number[], private readonly maxAgeMs: number) {
    this.#from = [...from];
    this.#flushed = [...from];
    this.#read = [...from];
  }

  /** A report read; a report older (by event time) than the one held for its vessel only moves the position. */
  take(p: HeldPosition): void {
    this.#read[p.partition] = Math.max(this.#read[p.partition] ?? 0, p.offset + 1);
    const newest = this.#pending.get(p.mmsi) ?? this.#held.get(p.mmsi);
    if (newest && newest.reportedAt > p.reportedAt) return;
    this.#pending.set(p.mmsi, p);
  }

  /** A record read that holds no usable position (no fix, or not decodable). */
  skip(partition: number, offset: number): void {
    this.#read[partition] = Math.max(this.#read[partition] ?? 0, offset + 1);
  }

  /**
   * The vessels whose position changed since the last flush (one entry each, its newest report), now held;
   * vessels not heard for the maximum age are forgotten.
   */
  flush(now: number): HeldPosition[] {
    const changed = [...this.#pending.values()];
    this.#pending.clear();
    for (const p of changed) this.#held.set(p.mmsi, p);
    this.#read.forEach((o, i) => (this.#flushed[i] = o));
    const oldest = now - this.maxAgeMs;
    for (const [mmsi, p] of this.#held) if (p.seenAt < oldest) this.#held.delete(mmsi);
    return changed;
  }

  get position(): number[] {
    return [...this.#flushed];
  }

  get size(): number {
    return this.#held.size;
  }

  /** Whether every report from `offsets` on was read here (the handle is not older than this instance's start). */
  covers(offsets: readonly number[]): boolean {
    return this.#from.every((o, p) => (offsets[p] ?? 0) >= o);
  }

  /** Held positions at or past `offsets` (the vessels that moved since a handle). */
  since(offsets: readonly number[]): HeldPosition[] {
    const out: HeldPosition[] = [];
    for (const p of this.#held.values()) if (p.offset >= (offsets[p.partition] ?? 0)) out.push(p);
    return out;
  }

  all(): IterableIterator<HeldPosition> {
    return this.#held.values();
  }
}
