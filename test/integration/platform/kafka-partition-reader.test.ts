import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KafkaPartitionReader, KafkaProducer } from '../../../platform/kafka/index.ts';
import { testKafka, unique, withAdmin } from '../../support/stack.ts';

// The group-less reader the stream hub uses: any offsets, any partitions, nothing joined or committed.
describe('KafkaPartitionReader', () => {
  const topic = unique('partition-reader');
  const producer = new KafkaProducer(testKafka());
  let reader: KafkaPartitionReader;

  beforeAll(async () => {
    await withAdmin((admin) => admin.ensureTopics([{ name: topic, key: 'k', partitions: 3, config: {}, description: '' }]));
    // One batch per partition, so a fetch from the middle gets the batch's earlier records too.
    await producer.send(Array.from({ length: 30 }, (_, i) => ({ topic, key: `k${i}`, value: `v${i}`, headers: { n: String(i) } })));
    reader = new KafkaPartitionReader(testKafka(), topic, 'test');
  });
  afterAll(async () => {
    await reader.close();
    await producer.close();
    await withAdmin((admin) => admin.deleteTopics([topic]));
  });

  it('lists where each partition starts and ends', async () => {
    const ends = await reader.offsets('latest');
    expect(await reader.offsets('earliest')).toEqual([0n, 0n, 0n]);
    expect(ends.reduce((a, b) => a + b, 0n)).toBe(30n);
  });

  it('reads chosen partitions from chosen offsets, never a record before them', async () => {
    const ends = await reader.offsets('latest');
    const records = await reader.fetch([1n, undefined, 0n], { maxWaitMs: 100, maxBytes: 1 << 20 });
    expect(records.every((r) => r.partition !== 1)).toBe(true);
    expect(records.filter((r) => r.partition === 0).map((r) => r.offset)).toEqual(Array.from({ length: Number(ends[0]) - 1 }, (_, i) => BigInt(i + 1)));
    expect(records.filter((r) => r.partition === 2)).toHaveLength(Number(ends[2]));
    const first = records.find((r) => r.partition === 2 && r.offset === 0n);
    expect(first).toMatchObject({ topic, key: expect.stringMatching(/^k\d+$/), headers: { n: expect.any(String) } });
    expect(first?.value.toString()).toBe(`v${first?.headers.n}`);
  });

  it('waits at the end of the log until a record arrives', async () => {
    const ends = await reader.offsets('latest');
    const started = Date.now();
    setTimeout(() => void producer.send([{ topic, key: 'late', value: 'late' }]), 300);
    const records = await reader.fetch(ends, { maxWaitMs: 5_000, maxBytes: 1 << 20 });
    expect(records.map((r) => r.value.toString())).toEqual(['late']);
    expect(Date.now() - started).toBeLessThan(4_000);
  });
});
