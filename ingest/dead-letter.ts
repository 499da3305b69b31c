// The one shape of a dead-letter record (schemas/dead-letter.ts), for every feed and path. Every dead letter
// is built here, so every one is bounded: raw input of any size becomes a record of a few kB.
import type { OutRecord } from '../platform/kafka/index.ts';
import type { TopicId } from '../platform/topics.ts';
import { DEAD_LETTER_DETAIL_MAX_CHARS, DEAD_LETTER_RAW_MAX_CHARS, type DeadLetter } from '../schemas/dead-letter.ts';
import type { AisReject } from '../schemas/ais.ts';
import type { TopicCodec } from '../platform/codec/index.ts';

/**
 * Drops absent optional fields so the value matches the schema exactly, and cuts raw input past
 * DEAD_LETTER_RAW_MAX_CHARS (noting `truncated` and the whole size in `raw_bytes`). The bounds are kept
 * here rather than as maxLength in the schema, so the registered schema stays compatible with old records.
 */
export function deadLetter(letter: DeadLetter): DeadLetter {
  const detail = letter.detail.length > DEAD_LETTER_DETAIL_MAX_CHARS ? `${letter.detail.slice(0, DEAD_LETTER_DETAIL_MAX_CHARS - 1)}…` : letter.detail;
  const out: DeadLetter = { feed: letter.feed, raw: letter.raw, source: letter.source, reason: letter.reason, detail, at: letter.at };
  const rawChars = totalLength(letter.raw);
  if (rawChars > DEAD_LETTER_RAW_MAX_CHARS) {
    out.raw = truncateLines(letter.raw, DEAD_LETTER_RAW_MAX_CHARS);
    out.truncated = true;
    out.raw_bytes = rawChars;
  }
  if (letter.station !== undefined) out.station = letter.station;
  return out;
}

export function fromAisReject(reject: AisReject): DeadLetter {
  return deadLetter({ feed: 'ais', raw: reject.raw, source: reject.source, station: reject.station, reason: reject.reason, detail: reject.detail, at: reject.at });
}

const TOO_LARGE = new Set(['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE']);

/**
 * The dead letter sent instead of a record Kafka refused for good (`code`, e.g. MESSAGE_TOO_LARGE): the
 * record's value as text, cut to the dead-letter bound. The input bounds keep our records far below the
 * broker's limit, so this is the last line of defence, not the way oversized input is normally caught.
 */
export function refusedRecordLetter(record: OutRecord, code: string, topics: Record<TopicId, string>, codec: TopicCodec, nowMs: number): OutRecord {
  const value = typeof record.value === 'string' ? record.value : record.value.toString('latin1');
  const letter = deadLetter({
    feed: record.topic === topics.gateReadings || record.topic === topics.gateReadingsRaw ? 'gate' : 'ais',
    raw: [value],
    source: `refused:${record.topic}`,
    reason: TOO_LARGE.has(code) ? 'record_too_large' : 'record_refused',
    detail: `Kafka refused this record for ${record.topic} (key ${String(record.key).slice(0, 64)}) with ${code}; it was not published`,
    at: new Date(nowMs).toISOString(),
  });
  return { topic: topics.deadLetter, key: letter.source, value: codec.encode('deadLetter', letter) };
}

function totalLength(lines: readonly string[]): number {
  let n = 0;
  for (const line of lines) n += line.length;
  return n;
}

/** The first `max` characters of the lines, in order; at least one (possibly cut) line. */
function truncateLines(lines: readonly string[], max: number): [string, ...string[]] {
  const kept: string[] = [];
  let left = max;
  for (const line of lines) {
    if (left <= 0) break;
    kept.push(line.length <= left ? line : line.slice(0, left));
    left -= line.length;
  }
  return (kept.length > 0 ? kept : ['']) as [string, ...string[]];
}
