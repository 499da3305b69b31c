// The demo's recording on the wall clock (pure: the caller gives the time and does the waiting).
//
// The recording has no per-line times, so its lines are spread evenly over one loop (its own length,
// about four minutes) and played again and again until the demo stops. Line i of n in loop k is due at
// start + k·loop + ⌊i·loop/n⌋ and is stamped with exactly that moment. A line is handed out only once its
// moment has come, so no event time lies in the future: the console, GET /v1/events (which ends at "now")
// and the health of the feed all read the same clock. Event time runs at the wall clock's pace; the demo
// does not compress it (compressing a replay stamped with the wall clock would only make the vessels sail
// ten times faster, and dwell counts in wall-clock minutes either way).

export interface DueLine {
  line: string;
  /** Event time of the line (epoch ms): the moment it was due, never after the `take` that returned it. */
  stampMs: number;
  /** Which pass over the recording, from 0. */
  loop: number;
}

export class LoopedRecording {
  readonly #lines: readonly string[];
  readonly #loopMs: number;
  readonly #startMs: number;
  /** The next line to hand out, counted over all loops (loop = ⌊next / n⌋). */
  #next = 0;

  constructor(lines: readonly string[], opts: { startMs: number; loopMs: number }) {
    if (lines.length === 0) throw new RangeError('the recording has no lines');
    // Each line its own millisecond: two reports of a vessel in one millisecond would drop the second as not newer.
    if (!(opts.loopMs >= lines.length)) throw new RangeError(`a loop of ${opts.loopMs} ms cannot give ${lines.length} lines a millisecond each`);
    this.#lines = lines;
    this.#loopMs = opts.loopMs;
    this.#startMs = opts.startMs;
  }

  get loopMs(): number {
    return this.#loopMs;
  }

  /** When the line at position `at` (over all loops) is due. */
  dueMs(at: number): number {
    const n = this.#lines.length;
    const loop = Math.floor(at / n);
    return this.#startMs + loop * this.#loopMs + Math.floor(((at - loop * n) * this.#loopMs) / n);
  }

  /**
   * Every line due by `nowMs` not handed out yet, in order. After a stall longer than a loop (a suspended
   * laptop), lines older than one loop are skipped rather than fed late in a burst: the vessels jump, as
   * they do at every loop's start.
   */
  take(nowMs: number): DueLine[] {
    const n = this.#lines.length;
    const oldestKept = nowMs - this.#loopMs;
    if (this.dueMs(this.#next) < oldestKept) {
      const loops = Math.floor((oldestKept - this.#startMs) / this.#loopMs);
      this.#next = Math.max(this.#next, loops * n);
      while (this.dueMs(this.#next) < oldestKept) this.#next++;
    }
    const out: DueLine[] = [];
    while (this.dueMs(this.#next) <= nowMs) {
      const at = this.#next++;
      out.push({ line: this.#lines[at % n]!, stampMs: this.dueMs(at), loop: Math.floor(at / n) });
    }
    return out;
  }
}
