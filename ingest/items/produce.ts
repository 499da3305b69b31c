import { AppError } from '../../platform/errors.ts';
import type { OutRecord } from '../../platform/kafka/index.ts';
import type { IngestRuntime } from '../runtime.ts';

/** How often a request waiting for its acknowledgement looks whether the queue has stalled meanwhile. */
const STALL_CHECK_MS = 250;

/**
 * Waits for room for all of the request's records in the queue (so concurrent requests cannot push it past
 * its limit), queues them and waits for Kafka's acknowledgement, all within the ack timeout. While the queue
 * is stalled (its oldest batch unacknowledged for longer than PSS_INGEST_STUCK_AFTER_MS: no write is
 * possible, e.g. the cluster lost its quorum) a request is answered 503 at once, taking nothing, and one
 * already waiting is answered 503 as soon as the stall is seen, instead of being held to the ack timeout.
 */
export async function produce(rt: Pick<IngestRuntime, 'config' | 'queue'>, records: OutRecord[]): Promise<void> {
  const { ingestHttpAckTimeoutMs: timeoutMs, ingestStuckAfterMs: stuckAfterMs } = rt.config;
  const stalled = () => rt.queue.stalledMs > stuckAfterMs;
  if (stalled()) throw new AppError('service_unavailable', `Kafka has not acknowledged any write for ${Math.round(rt.queue.stalledMs / 1000)} s; this request was not taken, retry later`);
  const signal = AbortSignal.timeout(timeoutMs);
  let acknowledged: Promise<void>;
  try {
    ({ acknowledged } = await rt.queue.addWhenRoom(records, signal));
  } catch {
    throw new AppError('service_unavailable', `The ingest is behind (Kafka slow or unreachable) and took nothing from this request; retry later`);
  }
  let timer: NodeJS.Timeout | undefined;
  let watch: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), Math.max(1, timeoutMs))));
  const stalledMeanwhile = new Promise<'stalled'>((resolve) => (watch = setInterval(() => stalled() && resolve('stalled'), STALL_CHECK_MS)));
  try {
    const outcome = await Promise.race([acknowledged, timedOut, stalledMeanwhile]).catch(() => 'closed' as const);
    if (outcome === 'timeout' || outcome === 'stalled') {
      const waited = outcome === 'timeout' ? `within ${timeoutMs} ms` : `for ${Math.round(rt.queue.stalledMs / 1000)} s (no write is getting through)`;
      throw new AppError('service_unavailable', `Kafka did not acknowledge ${waited}; the items may still be delivered, and a retry is safe (consumers deduplicate)`);
    }
    if (outcome === 'closed') throw new AppError('service_unavailable', 'The ingest is shutting down and could not deliver the items; retry (another instance will take them)');
  } finally {
    clearTimeout(timer);
    clearInterval(watch);
  }
}
