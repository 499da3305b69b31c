// Reads what a resuming client missed from Kafka by offset, when it is older than this instance's ring:
// the range from the client's handle to the hub's position, every partition, filtered as the client asked.
import type { TopicCodec } from '../../platform/codec/index.ts';
import type { KafkaPartitionReader } from '../../platform/kafka/index.ts';
import type { EventMatcher } from './filters.ts';
import { ReplaySelection, type Selection } from './replay-selection.ts';
import { streamRecord } from './stream-record.ts';

/** Records one resume may read; an older part of a larger range is reported as unscanned. */
export const SCAN_BUDGET = 200_000;

const FETCH = { maxWaitMs: 100, maxBytes: 4 * 1024 * 1024 };
/** Fetches in a row that bring nothing for a partition still short of its end before it is given up. */
const MAX_EMPTY_FETCHES = 3;

export async function readMissed(reader: KafkaPartitionReader, codec: TopicCodec, from: readonly number[], to: readonly number[], matches: EventMatcher, budget = SCAN_BUDGET): Promise<Selection> {
  const selection = new ReplaySelection(from);
  const position = await scanStart(reader, selection, from, to, budget);
  const empty = position.map(() => 0);
  for (;;) {
    const wanted = position.map((o, p) => (o < (to[p] ?? 0) && (empty[p] ?? 0) < MAX_EMPTY_FETCHES ? BigInt(o) : undefined));
    if (wanted.every((o) => o === undefined)) break;
    const records = (await reader.fetch(wanted, FETCH)).filter((r) => r.offset < BigInt(to[r.partition] ?? 0));
    wanted.forEach((o, p) => {
      if (o !== undefined) empty[p] = records.some((r) => r.partition === p) ? 0 : (empty[p] ?? 0) + 1;
    });
    const { values } = await codec.decode('securityEvents', records);
    for (const r of records) position[r.partition] = Math.max(position[r.partition] ?? 0, Number(r.offset) + 1);
    for (const { record: r, value: event } of values) {
      if (matches(event)) selection.add(streamRecord(r.partition, Number(r.offset), r.timestamp, event));
    }
  }
  // A partition that kept answering nothing (only transaction markers, or compacted away): its rest counts as unscanned.
  position.forEach((o, p) => selection.unscanned(p, (to[p] ?? 0) - o, to[p] ?? 0));
  return selection.result();
}

/**
 * Where reading starts on each partition: not before the log's start (older records were deleted by
 * retention), and within the budget, the newest records of each partition in proportion to its share.
 */
async function scanStart(reader: KafkaPartitionReader, selection: ReplaySelection, from: readonly number[], to: readonly number[], budget: number): Promise<number[]> {
  const earliest = (await reader.offsets('earliest')).map(Number);
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
