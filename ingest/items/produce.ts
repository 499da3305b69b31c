import { AppError } from '../../platform/errors.ts';
import type { OutRecord } from '../../platform/kafka/index.ts';
import type { IngestRuntime } from '../runtime.ts';

/**
 * Waits for room for all of the request's records in the queue (so concurrent requests cannot push it past
 * its limit), queues them and waits for Kafka's acknowledgement, all within the ack timeout.
 */
export async function produce(rt: Pick<IngestRuntime, 'config' | 'queue'>, records: OutRecord[]): Promise<void> {
  const timeoutMs = rt.config.ingestHttpAckTimeoutMs;
  const signal = AbortSignal.timeout(timeoutMs);
  let acknowledged: Promise<void>;
  try {
    ({ acknowledged } = await rt.queue.addWhenRoom(records, signal));
  } catch {
    throw new AppError('service_unavailable', `The ingest is behind (Kafka slow or unreachable) and took nothing from this request; retry later`);
  }
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), Math.max(1, timeoutMs))));
  try {
    const outcome = await Promise.race([acknowledged, timedOut]).catch(() => 'closed' as const);
    if (outcome === 'timeout') {
      throw new AppError('service_unavailable', `Kafka did not acknowledge within ${timeoutMs} ms; the items may still be delivered, and a retry is safe (consumers deduplicate)`);
    }
    if (outcome === 'closed') throw new AppError('service_unavailable', 'The ingest is shutting down and could not deliver the items; retry (another instance will take them)');
  } finally {
    clearTimeout(timer);
  }
}
