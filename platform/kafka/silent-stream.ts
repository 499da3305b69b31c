// Whether a consumer's stream has gone quiet while its partitions hold records it has not read: a stall of
// the client (a fetch whose answer never comes, a stream left paused), which no error reports. Pure; the
// consumer (consumer.ts) asks it after SILENT_STREAM_MS without a record and reopens the stream when it says so.

/** How long a consumer's stream may bring nothing, with no batch pending, before its partitions are checked. */
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
