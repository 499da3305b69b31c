// Timing of `pss replay`. Pacing (`--speed N`): the recorded receive time of a line (NMEA 4.0 tag block
// `c:`, or a Gatehouse `$PGHP` sentence) says when, relative to the first one, it should be fed again.
// Event time of a recording without such times (`--rate N/s`): a synthetic clock of N lines per second.
// Pure: the caller supplies the clock and does the waiting.
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

/** Every line gets its own millisecond: two reports of a vessel in one millisecond drop the second as not newer. */
export const MAX_LINES_PER_SECOND = 1_000;

/**
 * `pss replay --rate N/s` (and `pss demo`): N lines per second of event time, for recordings without
 * per-line times. `N`, `N/s`, `N/min` or `N/h`, at most MAX_LINES_PER_SECOND; undefined when the text is
 * not such a rate.
 */
export function parseRate(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(?:\/\s*(s|sec|second|min|minute|h|hour))?\s*$/i.exec(text);
  if (match === null) return undefined;
  const unit = (match[2] ?? 's').toLowerCase();
  const perSecond = Number(match[1]) / (unit.startsWith('h') ? 3_600 : unit.startsWith('m') ? 60 : 1);
  return perSecond > 0 && perSecond <= MAX_LINES_PER_SECOND ? perSecond : undefined;
}

/**
 * A synthetic receive clock: line i (0-based, in the order fed) is received at `originMs + i / rate`,
 * in whole milliseconds. Deterministic: the same recording at the same rate from the same origin gets
 * the same times however fast it is fed.
 */
export class SyntheticClock {
  #next = 0;

  constructor(
    readonly originMs: number,
    readonly linesPerSecond: number,
  ) {
    if (!(linesPerSecond > 0 && linesPerSecond <= MAX_LINES_PER_SECOND)) throw new RangeError(`the rate must be above 0 and at most ${MAX_LINES_PER_SECOND} lines a second`);
  }

  /** The time of line `index`. */
  at(index: number): number {
    return this.originMs + Math.floor((index * 1000) / this.linesPerSecond);
  }

  /** The time of the next line fed. */
  next(): number {
    return this.at(this.#next++);
  }
}

/** How many lines `hasRecordedTimes` looks at. */
export const TIME_PROBE_LINES = 1_000;

/** Whether any of the first TIME_PROBE_LINES non-empty lines carries a recorded time. */
export function hasRecordedTimes(lines: Iterable<string>): boolean {
  let seen = 0;
  for (const line of lines) {
    if (line.trim() === '') continue;
    if (recordedTimeMs(line) !== undefined) return true;
    if (++seen >= TIME_PROBE_LINES) break;
  }
  return false;
}
