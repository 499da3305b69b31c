// The ingest producer queue in front of the real producer and broker: a record the broker refuses for good
// (over its 1 MiB message.max.bytes) is replaced by its truncated dead letter; the rest of its batch is
// delivered, and the queue goes on. Before, the batch was retried every 5 s forever and every later record
// (every HTTP request, every paused source) waited behind it (issue 8, defect 1).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InRecord, OutRecord } from '../../../platform/kafka/index.ts';
import { registry } from '../../../platform/metrics.ts';
import { ingestHarness, readTopic, type IngestHarness } from '../../support/ingest.ts';
import { valueOf } from '../../support/codec.ts';

const value = (r: InRecord) => valueOf(r) as Record<string, unknown>;

async function refusedCount(): Promise<number> {
  const metric = await registry.getSingleMetric('pss_ingest_refused_total')?.get();
  return (metric?.values ?? []).filter((v) => v.labels.code === 'MESSAGE_TOO_LARGE').reduce((n, v) => n + v.value, 0);
}

describe('the ingest producer queue against the real broker', () => {
  let harness: IngestHarness;

  beforeAll(async () => {
    harness = await ingestHarness();
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('dead-letters a record Kafka refuses as too large instead of retrying it forever, and delivers the rest of its batch (regression)', async () => {
    const { runtime, topics } = harness;
    const refusedBefore = await refusedCount();
    const records: OutRecord[] = [
      { topic: topics.aisPositions, key: '1', value: '{"n":1}' },
      { topic: topics.aisPositions, key: '2', value: `{"raw":"${'x'.repeat(2_000_000)}"}` },
      { topic: topics.aisPositions, key: '3', value: '{"n":3}' },
    ];
    const acknowledged = runtime.queue.add(records);
    const outcome = await Promise.race([acknowledged.then(() => 'acknowledged'), new Promise((r) => setTimeout(() => r('still waiting after 20 s'), 20_000))]);
    expect(outcome).toBe('acknowledged');
    expect(runtime.queue.queued).toBe(0);
    expect(runtime.queue.stalledMs).toBe(0);

    expect((await readTopic(topics.aisPositions, 2)).map((r) => r.key).sort()).toEqual(['1', '3']);
    const letters = await readTopic(topics.deadLetter, 1);
    expect(letters.map(value)).toMatchObject([{ reason: 'record_too_large', source: `refused:${topics.aisPositions}`, truncated: true, raw_bytes: (records[1]?.value as string).length }]);
    expect((letters[0] as InRecord).value.length).toBeLessThan(16 * 1024);
    expect((await refusedCount()) - refusedBefore).toBe(1);

    // The queue is not stuck: the next record goes straight through.
    await runtime.queue.add([{ topic: topics.aisPositions, key: '4', value: '{"n":4}' }]);
  });
});
