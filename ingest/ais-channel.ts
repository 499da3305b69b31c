// The streaming AIS path of one source, stage by stage:
//   bytes -> lines (CR, LF, CRLF, across chunks) -> decoder (one per source: fragments, tag blocks)
//   -> records (validated, keyed by MMSI; rejects -> dead letter) -> queue (batched, acknowledged).
// It is a Writable stream, so `socket.pipe(channel)` gives back-pressure for free: while the queue is
// behind, the write callback waits, the channel's buffer fills, and pipe() pauses the socket.
import { Writable } from 'node:stream';
import type { OutRecord } from '../platform/kafka/index.ts';
import type { AisRecords } from './ais-records.ts';
import { AisTally } from './ais-records.ts';
import { createAisDecoder, createLineSplitter, type AisDecoder, type LineSplitter } from './ais/index.ts';
import { ingestMetrics, startSourceSeries } from './metrics.ts';
import type { ProducerQueue } from './producer-queue.ts';

export interface AisChannelOptions {
  /** The feed's name: `source` of every report and dead letter. */
  source: string;
  /** Metric label: tcp, udp, replay, raw, http. */
  kind: string;
  queue: ProducerQueue;
  records: AisRecords;
  strictTagBlocks: boolean;
  fragmentTimeoutMs: number;
  /** Longest line (decoder default otherwise); the line framing hands on a longer one once and skips its rest. */
  maxLineLength?: number;
  /** Characters of fragments held while their messages are incomplete (decoder default otherwise). */
  maxPendingBytes?: number;
  now?: () => number;
  /**
   * A synthetic clock for recordings without per-line times (`pss replay --rate`, `pss demo`): called
   * once per line, in order, for that line's receive time, which is also its report time when the line
   * has none of its own. Fragment expiry then runs on it too. Without it, lines are received at `now()`.
   */
  lineTime?: () => number;
}

export class AisChannel extends Writable {
  readonly source: string;
  readonly #opts: AisChannelOptions;
  readonly #decoder: AisDecoder;
  readonly #splitter: LineSplitter;
  readonly #tally = new AisTally();
  readonly #now: () => number;
  /** Fires when the oldest incomplete message times out, so it is dead-lettered even when the feed goes quiet. */
  #expiry: NodeJS.Timeout | undefined;
  #expiryDueMs = Number.POSITIVE_INFINITY;
  /** Added to the clock at the end of input, so every incomplete message expires at once. */
  #clockOffset = 0;
  /** The receive time of the latest line, when `lineTime` gives them. */
  #lineNow: number | undefined;
  #waiting = false;

  constructor(opts: AisChannelOptions) {
    super({ highWaterMark: 64 * 1024, decodeStrings: false });
    this.#opts = opts;
    this.source = opts.source;
    startSourceSeries(opts.source, opts.kind === 'tcp' || opts.kind === 'udp' ? opts.kind : 'other');
    const now = opts.now ?? Date.now;
    this.#now = () => (this.#lineNow ?? now()) + this.#clockOffset;
    this.#decoder = createAisDecoder({
      source: opts.source,
      now: this.#now,
      strictTagBlocks: opts.strictTagBlocks,
      fragmentTimeoutMs: opts.fragmentTimeoutMs,
      maxLineLength: opts.maxLineLength,
      maxPendingBytes: opts.maxPendingBytes,
    });
    this.#splitter = createLineSplitter(opts.maxLineLength);
    this.once('close', () => this.#cancelExpiry());
  }

  /** True while the channel holds a chunk back because the producer is behind. */
  get waiting(): boolean {
    return this.#waiting;
  }

  /** Incomplete multi-sentence messages held by the decoder. */
  get pendingFragments(): number {
    return this.#decoder.pendingGroups;
  }

  /** Decodes a complete unit of input (a UDP datagram, an HTTP body): no partial line is carried over. */
  ingestComplete(text: string): void {
    this.#ingest([...this.#splitter.push(text), ...this.#splitter.flush()]);
  }

  /**
   * The connection that fed this channel ended: its unterminated last line is decoded now (a truncated
   * sentence is dead-lettered, never silently dropped) instead of being joined to the next connection's
   * first line.
   */
  endOfConnection(): void {
    this.#ingest(this.#splitter.flush());
  }

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    // latin1 maps every byte to one character: split multi-byte garbage cannot throw or merge lines.
    this.#ingest(this.#splitter.push(typeof chunk === 'string' ? chunk : chunk.toString('latin1')));
    if (this.#opts.queue.writable) {
      callback();
      return;
    }
    this.#waiting = true;
    ingestMetrics.paused.set({ source: this.source }, 1);
    this.#opts.queue.once('drain', () => {
      this.#waiting = false;
      ingestMetrics.paused.set({ source: this.source }, 0);
      callback();
    });
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.#ingest(this.#splitter.flush());
    this.#clockOffset = this.#opts.fragmentTimeoutMs + 1;
    this.#expire();
    this.#cancelExpiry();
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.#cancelExpiry();
    callback(error);
  }

  #ingest(lines: string[]): void {
    if (lines.length === 0) return;
    const out: OutRecord[] = [];
    const lineTime = this.#opts.lineTime;
    for (const line of lines) {
      if (lineTime !== undefined) this.#lineNow = lineTime();
      this.#opts.records.appendRecords(this.#decoder.push(line), out, this.#tally);
    }
    this.#tally.lines += lines.length;
    this.#tally.publish(this.#opts.kind);
    void this.#opts.queue.add(out);
    this.#scheduleExpiry();
  }

  #expire(): void {
    const out: OutRecord[] = [];
    this.#opts.records.appendRecords(this.#decoder.expire(), out, this.#tally);
    this.#tally.publish(this.#opts.kind);
    void this.#opts.queue.add(out);
    this.#scheduleExpiry();
  }

  /**
   * Arms the timer for the oldest incomplete message. Messages are held oldest first, so a later message
   * never needs an earlier timer; when the oldest completes, the armed timer fires early, finds nothing
   * due, and is armed again for the next one.
   */
  #scheduleExpiry(): void {
    const due = this.#decoder.nextExpiryMs;
    if (due === undefined || due >= this.#expiryDueMs || this.destroyed) return;
    clearTimeout(this.#expiry);
    this.#expiryDueMs = due;
    this.#expiry = setTimeout(() => {
      this.#expiry = undefined;
      this.#expiryDueMs = Number.POSITIVE_INFINITY;
      this.#expire();
    }, Math.max(0, due - this.#now()));
    this.#expiry.unref();
  }

  #cancelExpiry(): void {
    clearTimeout(this.#expiry);
    this.#expiry = undefined;
    this.#expiryDueMs = Number.POSITIVE_INFINITY;
  }
}
