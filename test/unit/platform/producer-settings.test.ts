import { describe, expect, it } from 'vitest';
import { partitionGroups, partitionOfKey, producerSettings, retriesWithin } from '../../../platform/kafka/producer.ts';

describe('producer settings', () => {
  it('are idempotent with acks=all and no topic auto-creation', () => {
    expect(producerSettings()).toMatchObject({ idempotent: true, acks: -1, autocreateTopics: false });
  });

  it('retry for the delivery timeout, backing off from 100 ms to 1 s', () => {
    const { retries, retryDelay } = producerSettings(30_000);
    const delays = Array.from({ length: retries }, (_, i) => retryDelay(undefined, 'produce', i + 1));
    expect(delays.slice(0, 6)).toEqual([100, 200, 400, 800, 1_000, 1_000]);
    const total = delays.reduce((a, b) => a + b, 0);
    expect(total).toBeLessThanOrEqual(30_000);
    expect(total).toBeGreaterThan(29_000);
    // Longer than a KRaft broker's default session timeout (9 s), after which its partitions get new leaders.
    expect(retriesWithin(10_000)).toBe(12);
    expect(retriesWithin(2_000)).toBe(4);
    expect(retriesWithin(50)).toBe(1);
  });
});

describe('partition groups of a batch', () => {
  const rec = (topic: string, key?: string) => ({ topic, value: 'v', ...(key === undefined ? {} : { key }) });

  it('puts each record in the group of its topic and partition, in batch order', () => {
    const records = [rec('a', '257000001'), rec('b', '257000001'), rec('a', '257000002'), rec('a', '257000001'), rec('a')];
    const groups = partitionGroups(records, (topic) => (topic === 'a' ? 6 : 3));
    // Every record once, each group in the order of the batch.
    expect(groups.flatMap((g) => g.indexes).sort()).toEqual([0, 1, 2, 3, 4]);
    for (const g of groups) expect([...g.indexes].sort((x, y) => x - y)).toEqual(g.indexes);
    const groupOf = (i: number) => groups.find((g) => g.indexes.includes(i));
    expect(groupOf(0)).toBe(groupOf(3));
    expect(groupOf(0)?.partition).toBe(partitionOfKey('257000001', 6));
    expect(groupOf(1)).toMatchObject({ topic: 'b', partition: partitionOfKey('257000001', 3) });
    // A record without a key goes to partition 0, as the client places it.
    expect(groupOf(4)).toMatchObject({ topic: 'a', partition: 0 });
  });

  it('spreads keys over every partition', () => {
    expect(new Set(Array.from({ length: 60 }, (_, i) => partitionGroups([rec('t', `k${i}`)], () => 6)[0]?.partition)).size).toBe(6);
  });
});
