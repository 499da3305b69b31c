// Pacing of `pss replay --speed N`: the recorded receive time of a line (NMEA 4.0 tag block `c:`, or a
// Gatehouse `$PGHP` sentence) says when, relative to the first one, it should be fed again. Pure: the
// caller supplies the clock and does the waiting.
import { isGatehouse, parseGatehouse } from '../ais/gatehouse.ts';
import { parseTagBlock } from '../ais/tag-block.ts';

/** The recorded time of a line in epoch ms, or undefined when it carries none. */
export function recordedTimeMs(line: string): number | undefined {
  if (line.charCodeAt(0) === 92 /* \ */) {
    const tag = parseTagBlock(line, false);
    return tag.failed ? undefined : tag.timeMs;
  }
  if (isGatehouse(line, 0)) {
    const pghp = parseGatehouse(line, 0);
    return pghp.failed ? undefined : pghp.timeMs;
  }
  return undefined;
}

export interface ReplayClockOptions {
  /** 1 = recorded speed, 10 = ten times faster. */
  speed: number;
  /**
   * A recorded gap longer than this (e.g. between two concatenated recordings) is not waited out: the
   * replay carries on as if the next line followed immediately.
   */
  maxGapMs: number;
}

export class ReplayClock {
  #wallAnchor: number | undefined;
  #recordedAnchor = 0;
  #lastRecorded = 0;

  constructor(private readonly opts: ReplayClockOptions) {
    if (!(opts.speed > 0)) throw new RangeError('replay speed must be greater than 0');
  }

  /** How long to wait, from `nowMs`, before feeding a line recorded at `recordedMs`. */
  delayMs(recordedMs: number, nowMs: number): number {
    if (this.#wallAnchor === undefined || recordedMs - this.#lastRecorded > this.opts.maxGapMs) {
      this.#anchor(recordedMs, nowMs);
      return 0;
    }
    // Out-of-order receive times (several receivers merged) are fed at once, never waited for.
    if (recordedMs <= this.#lastRecorded) return 0;
    this.#lastRecorded = recordedMs;
    const due = this.#wallAnchor + (recordedMs - this.#recordedAnchor) / this.opts.speed;
    return Math.max(0, due - nowMs);
  }

  #anchor(recordedMs: number, nowMs: number): void {
    this.#wallAnchor = nowMs;
    this.#recordedAnchor = recordedMs;
    this.#lastRecorded = recordedMs;
  }
}
