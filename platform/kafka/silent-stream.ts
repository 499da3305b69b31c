// Whether a consumer's stream has stalled while its partitions hold records it has not read: a stall of the
// client (a fetch whose answer never comes, a stream left paused, a fetch retried at a broker that no longer
// leads its partitions), which no error reports. Two shapes, both pure here: the whole stream quiet
// (unreadPartitions, after SILENT_STREAM_MS without a record), and some partitions frozen while others flow
// (stalledPartitions: a read position unmoved between two checks SILENT_STREAM_MS apart while records wait
// beyond it), the shape issue 33 found after a broker loss, which the first alone never saw. The consumer
// (consumer.ts) reopens its stream when either says so, and reports the stall until the partitions move.

/** How long a consumer's stream may bring nothing, or a partition with records waiting not move, before it is a stall. */
export const SILENT_STREAM_MS = 30_000;

export interface PartitionReading {
  topic: string;
  partition: number;
  /** The next offset this member would read: after its last handled record, else the group's committed offset (null: none). */
  next: bigint | null;
  /** The partition's end offset (the offset the next record written gets). */
  end: bigint;
}

/** The partitions that hold records beyond what this member has read; empty when the quiet is just a quiet topic. */
export function unreadPartitions(readings: readonly PartitionReading[]): PartitionReading[] {
  return readings.filter((r) => r.next !== null && r.end > r.next);
}

export const readingKey = (r: { topic: string; partition: number }): string => `${r.topic}\u0000${r.partition}`;

/**
 * The partitions that hold unread records and whose read position is where it was at the last check
 * (`before`, by readingKey), leaving out those with records already fetched and waiting to be handled
 * (`waiting`): those are not stalled, only queued behind other work.
 */
export function stalledPartitions(readings: readonly PartitionReading[], before: ReadonlyMap<string, bigint>, waiting: ReadonlySet<string>): PartitionReading[] {
  return readings.filter((r) => {
    if (r.next === null || r.end <= r.next) return false;
    const key = readingKey(r);
    return before.get(key) === r.next && !waiting.has(key);
  });
}
