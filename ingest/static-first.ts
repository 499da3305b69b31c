// Static data before the reports it explains (issue 8, defect 3). The zone processor applies a vessel's
// static report to every position produced after the static report was acknowledged (it waits for the
// vessel directory to read ais.static up to its end offsets). A static report and a position of the same
// vessel in one batch (the usual [static, position] HTTP request) are not ordered by that: one produce
// request is appended partition by partition, and the position can be fetched and evaluated before the
// static report is appended. So a batch holding both goes out in two sends: first everything except the
// reports of vessels whose static data is in the batch, then those, once the first is acknowledged.
// (Batches themselves are ordered: the queue keeps one in flight by default, PSS_INGEST_MAX_IN_FLIGHT.)
import type { OutRecord } from '../platform/kafka/index.ts';

/** The sends of one batch, in order: one group, or two when static data must be acknowledged first. */
export function staticFirst(records: OutRecord[], staticTopic: string): OutRecord[][] {
  let vessels: Set<string> | undefined;
  for (const r of records) if (r.topic === staticTopic && r.key !== undefined) (vessels ??= new Set()).add(r.key);
  if (vessels === undefined) return [records];
  const first: OutRecord[] = [];
  const after: OutRecord[] = [];
  for (const r of records) (r.topic !== staticTopic && r.key !== undefined && vessels.has(r.key) ? after : first).push(r);
  return after.length === 0 ? [first] : [first, after];
}

/** Sends a batch as `staticFirst` orders it. */
export async function sendStaticFirst(send: (records: OutRecord[]) => Promise<void>, records: OutRecord[], staticTopic: string): Promise<void> {
  for (const group of staticFirst(records, staticTopic)) await send(group);
}
