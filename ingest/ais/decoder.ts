// Streaming AIS decoder: one instance per feed. push() takes a line (or a chunk of lines) and returns
// what it produced: reports, skips (counted, not published) and rejects (dead-lettered with a reason).
// Pure apart from the injected clock; it never throws on input, whatever the bytes.
import type { AisDecodeResult, AisRejectReason } from '../../schemas/ais.ts';
import { FragmentStore, type Fragment, type Orphan } from './fragments.ts';
import { isGatehouse, parseGatehouse } from './gatehouse.ts';
import { decodeMessage } from './messages.ts';
import { NOT_AIS, parseVdm, type VdmSentence } from './nmea.ts';
import { MAX_REPORTED_AHEAD_MS } from '../../schemas/ais.ts';
import { resolveOptions, type AisDecoderOptions, type ResolvedOptions } from './options.ts';
import { reject, rejectMessage, skip, type Envelope, type Results } from './results.ts';
import { Payload } from './sixbit.ts';
import { parseTagBlock, type TagBlock } from './tag-block.ts';

export type { AisDecoderOptions } from './options.ts';

export interface AisDecoder {
  /** Decodes one line; a chunk holding several lines (CR, LF, CRLF, or a literal "\r\n") is split. */
  push(line: string): AisDecodeResult[];
  /** Rejects incomplete multi-sentence messages older than the fragment timeout (call periodically). */
  expire(): AisDecodeResult[];
  /** Rejects every incomplete multi-sentence message now, whatever its age (end of input, shutdown). */
  flush(): AisDecodeResult[];
  /** Incomplete multi-sentence messages currently held. */
  readonly pendingGroups: number;
  /** When the oldest incomplete message times out (clock ms), or undefined when none is held: when to call expire(). */
  readonly nextExpiryMs: number | undefined;
}

export function createAisDecoder(options: AisDecoderOptions): AisDecoder {
  return new Decoder(resolveOptions(options));
}

// Some exporters write CRLF as the four characters `\r\n`; a backslash can only start a tag block at
// the beginning of a line, so the escape is unambiguous and the sentences around it are recovered.
const LINE_BREAKS = /\\r\\n|\r\n?|\n/;

const ORPHAN_CAUSES: Readonly<Record<Orphan['cause'], string>> = {
  timeout: 'the other fragments did not arrive within the fragment timeout',
  replaced: 'a new fragment with the same number and key arrived first',
  evicted: 'too many incomplete messages were pending; the oldest was dropped',
  overflow: 'the fragments pending for this source exceeded their size bound; the oldest message was dropped',
  flushed: 'the input ended (or the reader had to let go of it) before the other fragments arrived',
};

/** Formats epoch ms as ISO 8601, remembering the last value (most lines in a burst share a time). */
class IsoClock {
  private lastMs = Number.NaN;
  private lastIso = '';
  format(ms: number): string {
    if (ms !== this.lastMs) {
      this.lastIso = new Date(ms).toISOString();
      this.lastMs = ms;
    }
    return this.lastIso;
  }
}

class Decoder implements AisDecoder {
  private readonly payload = new Payload();
  private readonly fragments: FragmentStore;
  private readonly received = new IsoClock();
  private readonly reported = new IsoClock();
  private gatehouseMs: number | undefined;

  constructor(private readonly options: ResolvedOptions) {
    this.fragments = new FragmentStore(options.fragmentTimeoutMs, options.maxPendingGroups, options.maxPendingBytes);
  }

  get pendingGroups(): number {
    return this.fragments.size;
  }

  get nextExpiryMs(): number | undefined {
    return this.fragments.nextExpiryMs;
  }

  push(line: string): AisDecodeResult[] {
    const out: Results = [];
    const nowMs = this.options.now();
    try {
      if (line.indexOf('\n') === -1 && line.indexOf('\r') === -1 && line.indexOf('\\r\\n') === -1) {
        this.line(line, nowMs, out);
      } else {
        for (const part of line.split(LINE_BREAKS)) this.line(part, nowMs, out);
      }
      if (this.fragments.hasExpired(nowMs)) this.expireAt(nowMs, out);
    } catch (error) {
      // Last line of defence so one bad line cannot stop a feed; the fuzz tests assert it never fires.
      reject(out, [line], this.options.source, this.received.format(nowMs), 'decoder_error', String(error));
    }
    return out;
  }

  expire(): AisDecodeResult[] {
    const out: Results = [];
    this.expireAt(this.options.now(), out);
    return out;
  }

  flush(): AisDecodeResult[] {
    const out: Results = [];
    const orphans: Orphan[] = [];
    this.fragments.flush(orphans);
    this.rejectOrphans(orphans, this.options.now(), out);
    return out;
  }

  private expireAt(nowMs: number, out: Results): void {
    const orphans: Orphan[] = [];
    this.fragments.expire(nowMs, orphans);
    this.rejectOrphans(orphans, nowMs, out);
  }

  private line(text: string, nowMs: number, out: Results): void {
    if (text.length > this.options.maxLineLength) return this.rejectLongLine(text, nowMs, out);
    const line = text.length > 0 && (text.charCodeAt(0) <= 32 || text.charCodeAt(text.length - 1) <= 32) ? text.trim() : text;
    if (line.length === 0 || line.charCodeAt(0) === 35 /* # */) return;
    let tag: TagBlock | undefined;
    let start = 0;
    if (line.charCodeAt(0) === 92 /* \ */) {
      const parsed = parseTagBlock(line, this.options.strictTagBlocks);
      if (parsed.failed) return this.rejectLine(line, nowMs, out, parsed.reason, parsed.detail);
      tag = parsed;
      start = parsed.end;
    }
    const first = line.charCodeAt(start);
    if (first === 33 /* ! */) return this.sentence(line, start, tag, nowMs, out);
    if (first === 36 /* $ */) return this.dollarSentence(line, start, nowMs, out);
    const detail = start === line.length ? 'tag block without a sentence' : 'not an NMEA sentence (expected "!", "$", "\\" or "#")';
    return this.rejectLine(line, nowMs, out, 'malformed_sentence', detail, tag?.station);
  }

  /** `$` sentences are not AIS: $PGHP sets the event time of what follows, the rest are skipped. */
  private dollarSentence(line: string, start: number, nowMs: number, out: Results): void {
    if (!isGatehouse(line, start)) return skip(out, [line], this.options.source, this.received.format(nowMs), 'not_ais');
    const parsed = parseGatehouse(line, start);
    if (parsed.failed) return this.rejectLine(line, nowMs, out, parsed.reason, parsed.detail);
    if (parsed.timeMs !== undefined) this.gatehouseMs = parsed.timeMs;
  }

  private sentence(line: string, start: number, tag: TagBlock | undefined, nowMs: number, out: Results): void {
    const s = parseVdm(line, start);
    if (s === NOT_AIS) return skip(out, [line], this.options.source, this.received.format(nowMs), 'not_ais');
    if (s.failed) return this.rejectLine(line, nowMs, out, s.reason, s.detail, tag?.station);
    if (s.total > 1) return this.fragment(line, s, tag, nowMs, out);
    if (s.payloadStart === s.payloadEnd) return this.rejectLine(line, nowMs, out, 'empty_payload', 'sentence has no payload', tag?.station);
    const payload = this.payload;
    payload.reset();
    const bad = payload.append(line, s.payloadStart, s.payloadEnd);
    const env = this.envelope([line], tag?.station, tag?.timeMs, s.trailingEpochMs, this.gatehouseMs, nowMs);
    if (bad !== -1) return this.rejectPayload(env, bad === -2 ? undefined : line.charAt(bad), out);
    payload.finish(s.fillBits);
    this.decode(env, nowMs, out);
  }

  private fragment(line: string, s: VdmSentence, tag: TagBlock | undefined, nowMs: number, out: Results): void {
    const station = tag?.station;
    // Tag-block groups link fragments explicitly (later fragments may carry no s: field).
    const key = tag?.group !== undefined && tag.group.total > 1
      ? `g|${tag.group.id}|${s.total}`
      : `${station ?? ''}|${s.header}|${s.channel}|${s.sequence}|${s.total}`;
    const fragment: Fragment = {
      line,
      payload: line.slice(s.payloadStart, s.payloadEnd),
      fillBits: s.fillBits,
      station,
      tagTimeMs: tag?.timeMs,
      trailingEpochMs: s.trailingEpochMs,
      gatehouseMs: this.gatehouseMs,
    };
    const orphans: Orphan[] = [];
    const complete = this.fragments.add(key, s.total, s.number, fragment, nowMs, orphans);
    this.rejectOrphans(orphans, nowMs, out);
    if (complete !== undefined) this.assemble(complete, nowMs, out);
  }

  private assemble(fragments: Fragment[], nowMs: number, out: Results): void {
    const first = fragments[0] as Fragment;
    const last = fragments[fragments.length - 1] as Fragment;
    const station = fragments.find((f) => f.station !== undefined)?.station;
    const tagTimeMs = first.tagTimeMs ?? fragments.find((f) => f.tagTimeMs !== undefined)?.tagTimeMs;
    const env = this.envelope(fragments.map((f) => f.line), station, tagTimeMs, first.trailingEpochMs, first.gatehouseMs, nowMs);
    const payload = this.payload;
    payload.reset();
    for (const f of fragments) {
      const bad = payload.append(f.payload, 0, f.payload.length);
      if (bad !== -1) return this.rejectPayload(env, bad === -2 ? undefined : f.payload.charAt(bad), out);
    }
    payload.finish(last.fillBits);
    if (fragments.every((f) => f.payload.length === 0)) return reject(out, env.raw, env.source, env.received_at, 'empty_payload', 'no fragment has a payload', station);
    this.decode(env, nowMs, out);
  }

  /**
   * Decodes the payload in `this.payload`. A message whose event time lies more than
   * MAX_REPORTED_AHEAD_MS after its receive time yields no report: it is rejected as future_timestamp
   * (its skips and other rejects stay as they are). Only the rare future case pays for the extra array.
   */
  private decode(env: Envelope, nowMs: number, out: Results): void {
    const ahead = env.reportedMs - nowMs;
    if (!(ahead > MAX_REPORTED_AHEAD_MS)) return decodeMessage(this.payload, env, out);
    const results: Results = [];
    decodeMessage(this.payload, env, results);
    if (!results.some((r) => r.kind !== 'skip' && r.kind !== 'reject')) {
      for (const r of results) out.push(r);
      return;
    }
    const detail = `reported_at ${env.reported_at} is ${Math.round(ahead / 1000)} s after received_at ${env.received_at}; at most ${MAX_REPORTED_AHEAD_MS / 1000} s is accepted (is the receiver's clock wrong?)`;
    rejectMessage(out, env, 'future_timestamp', detail);
  }

  /** Event time: tag block c:, else the latest $PGHP time, else a trailing epoch field, else now (checked against now in `decode`). */
  private envelope(raw: string[], station: string | undefined, tagMs: number | undefined, trailingMs: number | undefined, gatehouseMs: number | undefined, nowMs: number): Envelope {
    const reportedMs = tagMs ?? gatehouseMs ?? trailingMs ?? nowMs;
    const received_at = this.received.format(nowMs);
    const reported_at = reportedMs === nowMs ? received_at : this.reported.format(reportedMs);
    return { source: this.options.source, station, reportedMs, reported_at, received_at, raw };
  }

  private rejectPayload(env: Envelope, badChar: string | undefined, out: Results): void {
    const detail = badChar === undefined ? 'payload is too long' : `payload character ${JSON.stringify(badChar)} is not 6-bit armoring`;
    reject(out, env.raw, env.source, env.received_at, 'bad_payload', detail, env.station);
  }

  /** Before any parsing: the dead letter keeps its first characters (ingest/dead-letter.ts). */
  private rejectLongLine(line: string, nowMs: number, out: Results): void {
    this.rejectLine(line, nowMs, out, 'line_too_long', `line of ${line.length} characters; at most ${this.options.maxLineLength} are accepted (an NMEA sentence has at most 82)`);
  }

  private rejectLine(line: string, nowMs: number, out: Results, reason: AisRejectReason, detail: string, station?: string): void {
    reject(out, [line], this.options.source, this.received.format(nowMs), reason, detail, station);
  }

  private rejectOrphans(orphans: Orphan[], nowMs: number, out: Results): void {
    for (const { group, cause } of orphans) {
      const present = group.fragments.filter((f): f is Fragment => f !== undefined);
      const numbers = group.fragments.flatMap((f, i) => (f === undefined ? [] : [i + 1])).join(', ');
      const detail = `fragment ${numbers} of ${group.fragments.length} received; ${ORPHAN_CAUSES[cause]}`;
      reject(out, present.map((f) => f.line), this.options.source, this.received.format(nowMs), 'orphan_fragment', detail, present[0]?.station);
    }
  }
}
