// Reads what a resuming client missed from Kafka by offset, when it is older than this instance's ring:
// the range from the client's handle to the hub's position, every partition, filtered as the client asked,
// without the copies of events (event-copies.ts).
import type { TopicCodec } from '../../platform/codec/index.ts';
import type { InRecord, KafkaPartitionReader } from '../../platform/kafka/index.ts';
import { CopyWindow, identityOf } from './event-copies.ts';
import type { EventMatcher } from './filters.ts';
import { ReplaySelection, type Selection } from './replay-selection.ts';
import { streamRecord } from './stream-record.ts';

/** Records one resume may read; an older part of a larger range is reported as unscanned. */
export const SCAN_BUDGET = 200_000;

const FETCH = { maxWaitMs: 100, maxBytes: 4 * 1024 * 1024 };
/** Fetches in a row that bring nothing for a partition still short of its end before it is given up. */
const MAX_EMPTY_FETCHES = 3;

export interface MissedRange {
  /** Per partition, the client's handle and the hub's position. */
  from: readonly number[];
  to: readonly number[];
  matches: EventMatcher;
  /** CopyWindow span: this many records before the range are read too, for the ids they hold. */
  dedupeRecords: number;
  budget?: number;
}

export async function readMissed(reader: KafkaPartitionReader, codec: TopicCodec, range: MissedRange): Promise<Selection> {
  const { from, to, matches } = range;
  const selection = new ReplaySelection(from);
  const earliest = (await reader.offsets('earliest')).map(Number);
  const start = scanStart(selection, earliest, from, to, range.budget ?? SCAN_BUDGET);
  // Partitions with nothing to read need no look back.
  const lookFrom = lookBack(earliest, start, range.dedupeRecords).map((o, p) => ((start[p] ?? 0) < (to[p] ?? 0) ? o : (start[p] ?? 0)));
  const copies = await copiesIn(reader, lookFrom, start, range.dedupeRecords);
  const position = await scanRange(reader, start, to, async (records) => {
    const { values } = await codec.decode('securityEvents', records);
    const events = new Map(values.map((v) => [v.record, v.value]));
    for (const r of records) {
      const offset = Number(r.offset);
      if (copies.isCopy(r.partition, offset, identityOf(r))) continue;
      const event = events.get(r);
      if (event && matches(event)) selection.add(streamRecord(r.partition, offset, r.timestamp, event));
    }
  });
  // A partition that kept answering nothing (only transaction markers, or compacted away): its rest counts as unscanned.
  position.forEach((o, p) => selection.unscanned(p, (to[p] ?? 0) - o, to[p] ?? 0));
  return selection.result();
}

/** The copy window as it stands at `until`: the ids of up to `span` records before it on each partition. */
export async function recentCopies(reader: KafkaPartitionReader, until: readonly number[], span: number): Promise<CopyWindow> {
  return copiesIn(reader, lookBack((await reader.offsets('earliest')).map(Number), until, span), until, span);
}

/** Per partition, `span` offsets before `until`, not before the log's start. */
function lookBack(earliest: readonly number[], until: readonly number[], span: number): number[] {
  return until.map((o, p) => Math.min(o, Math.max(earliest[p] ?? 0, o - span)));
}

async function copiesIn(reader: KafkaPartitionReader, from: readonly number[], until: readonly number[], span: number): Promise<CopyWindow> {
  const copies = new CopyWindow(span);
  await scanRange(reader, from, until, (records) => {
    for (const r of records) copies.isCopy(r.partition, Number(r.offset), identityOf(r));
  });
  return copies;
}

/**
 * Reads every partition from `from` up to `to` (exclusive), handing each fetch's records (in offset order
 * per partition) to `take`; returns where it stopped on each partition.
 */
async function scanRange(reader: KafkaPartitionReader, from: readonly number[], to: readonly number[], take: (records: InRecord[]) => unknown): Promise<number[]> {
  const position = [...from];
  const empty = position.map(() => 0);
  for (;;) {
    const wanted = position.map((o, p) => (o < (to[p] ?? 0) && (empty[p] ?? 0) < MAX_EMPTY_FETCHES ? BigInt(o) : undefined));
    if (wanted.every((o) => o === undefined)) return position;
    const records = (await reader.fetch(wanted, FETCH)).filter((r) => r.offset < BigInt(to[r.partition] ?? 0));
    wanted.forEach((o, p) => {
      if (o !== undefined) empty[p] = records.some((r) => r.partition === p) ? 0 : (empty[p] ?? 0) + 1;
    });
    await take(records);
    for (const r of records) position[r.partition] = Math.max(position[r.partition] ?? 0, Number(r.offset) + 1);
  }
}

/**
 * Where reading starts on each partition: not before the log's start (older records were deleted by
 * retention), and within the budget, the newest records of each partition in proportion to its share.
 */
function scanStart(selection: ReplaySelection, earliest: readonly number[], from: readonly number[], to: readonly number[], budget: number): number[] {
  const start = from.map((o, p) => Math.min(Math.max(o, earliest[p] ?? 0), to[p] ?? 0));
  const total = start.reduce((sum, o, p) => sum + Math.max(0, (to[p] ?? 0) - o), 0);
  return start.map((o, p) => {
    const end = to[p] ?? 0;
    const keep = total > budget ? Math.floor((budget * Math.max(0, end - o)) / total) : end - o;
    const begin = Math.max(o, end - keep);
    selection.unscanned(p, begin - (from[p] ?? 0), begin);
    return begin;
  });
}
