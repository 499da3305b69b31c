import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../app/config.ts';
import { declaredTopics, describeDrift, partitionList, replicaHealth, replicationFor, topicDrift, type DescribedTopic } from '../../../platform/topic-check.ts';
import { topicSpecs } from '../../../platform/topics.ts';

const spec = (name: string, partitions: number, config: Record<string, string> = {}) => ({ name, key: 'k', partitions, config, description: '' });
const described = (name: string, partitions: number, replicas: number[], config: Record<string, string>, isr = replicas): DescribedTopic => ({
  name,
  partitions: Array.from({ length: partitions }, (_, partition) => ({ partition, leader: replicas[0] ?? -1, replicas, isr })),
  config,
});

describe('replication on a cluster', () => {
  it('keeps the factor and sets min.insync.replicas 2 on three brokers or more', () => {
    expect(replicationFor({ replicationFactor: 3, minInsyncReplicas: 2 }, 3)).toEqual({ replicationFactor: 3, minInsyncReplicas: 2 });
    expect(replicationFor({ replicationFactor: 3, minInsyncReplicas: 2 }, 5)).toEqual({ replicationFactor: 3, minInsyncReplicas: 2 });
    expect(replicationFor({ replicationFactor: 5, minInsyncReplicas: 3 }, 6)).toEqual({ replicationFactor: 5, minInsyncReplicas: 3 });
  });

  it('caps the factor at the brokers there are, and says from what', () => {
    expect(replicationFor({ replicationFactor: 3, minInsyncReplicas: 2 }, 1)).toEqual({ replicationFactor: 1, minInsyncReplicas: 1, cappedFrom: 3 });
    expect(replicationFor({ replicationFactor: 3, minInsyncReplicas: 2 }, 2)).toEqual({ replicationFactor: 2, minInsyncReplicas: 1, cappedFrom: 3 });
  });

  it('keeps min.insync.replicas below the factor, so one broker lost does not refuse writes', () => {
    expect(replicationFor({ replicationFactor: 3, minInsyncReplicas: 3 }, 3).minInsyncReplicas).toBe(2);
    expect(replicationFor({ replicationFactor: 1, minInsyncReplicas: 2 }, 3)).toEqual({ replicationFactor: 1, minInsyncReplicas: 1 });
    expect(replicationFor({ replicationFactor: 3, minInsyncReplicas: 2 }, 0).replicationFactor).toBe(1);
  });

  it('declares each topic with the factor and its min.insync.replicas beside its own config', () => {
    const [topic] = declaredTopics([spec('p.ais.static', 6, { 'cleanup.policy': 'compact' })], { replicationFactor: 3, minInsyncReplicas: 2 });
    expect(topic).toEqual({ name: 'p.ais.static', partitions: 6, replicationFactor: 3, config: { 'cleanup.policy': 'compact', 'min.insync.replicas': '2' } });
  });
});

describe('declared against described', () => {
  const declared = declaredTopics([spec('a', 6, { 'cleanup.policy': 'compact' }), spec('b', 3, { 'retention.ms': '1000' })], { replicationFactor: 3, minInsyncReplicas: 2 });

  it('finds nothing when the cluster has what is declared, or more partitions and replicas', () => {
    expect(topicDrift(declared, [
      described('a', 6, [1, 2, 3], { 'cleanup.policy': 'compact', 'min.insync.replicas': '2' }),
      described('b', 12, [1, 2, 3, 4], { 'retention.ms': '1000', 'min.insync.replicas': '2' }),
    ])).toEqual([]);
  });

  it('names fewer partitions, fewer replicas, another cleanup policy and a missing topic, each by topic', () => {
    const drift = topicDrift(declared, [described('a', 3, [1], { 'cleanup.policy': 'delete', 'min.insync.replicas': '1' })]);
    expect(drift).toEqual([
      { topic: 'a', kind: 'partitions', declared: '6', actual: '3', fixable: true },
      { topic: 'a', kind: 'replicas', declared: '3', actual: '1', fixable: false },
      { topic: 'a', kind: 'config', key: 'cleanup.policy', declared: 'compact', actual: 'delete', fixable: true },
      { topic: 'a', kind: 'config', key: 'min.insync.replicas', declared: '2', actual: '1', fixable: true },
      { topic: 'b', kind: 'missing', declared: 'exists', actual: 'missing', fixable: true },
    ]);
    expect(drift.map(describeDrift)).toEqual([
      'a: partitions 3, declared 6 (--apply sets it)',
      'a: replicas 1, declared 3 (needs a partition reassignment (kafka-reassign-partitions); --apply cannot raise it)',
      'a: cleanup.policy delete, declared compact (--apply sets it)',
      'a: min.insync.replicas 1, declared 2 (--apply sets it)',
      'b: missing (--apply creates it)',
    ]);
  });

  it('counts the smallest replica set of a topic', () => {
    const topic = described('a', 2, [1, 2, 3], { 'cleanup.policy': 'compact', 'min.insync.replicas': '2' });
    (topic.partitions[1] as { replicas: number[] }).replicas = [1, 2];
    expect(topicDrift([declared[0]!], [topic]).map((d) => [d.kind, d.actual])).toEqual([['partitions', '2'], ['replicas', '2']]);
  });
});

describe('replica health', () => {
  const declared = declaredTopics([spec('a', 3)], { replicationFactor: 3, minInsyncReplicas: 2 });

  it('tells partitions without a leader, below min.insync.replicas and merely under-replicated apart', () => {
    const topic: DescribedTopic = {
      name: 'a',
      config: { 'min.insync.replicas': '2' },
      partitions: [
        { partition: 0, leader: 1, replicas: [1, 2, 3], isr: [1, 2, 3] },
        { partition: 1, leader: 2, replicas: [2, 3, 1], isr: [2, 1] },
        { partition: 2, leader: -1, replicas: [3, 1, 2], isr: [3] },
      ],
    };
    expect(replicaHealth(declared, [topic])).toEqual({ offline: ['a[2]'], belowMinInsync: [], underReplicated: ['a[1]', 'a[2]'] });
    (topic.partitions[2] as { leader: number }).leader = 3;
    expect(replicaHealth(declared, [topic])).toEqual({ offline: [], belowMinInsync: ['a[2]'], underReplicated: ['a[1]', 'a[2]'] });
  });

  it('lists partitions per topic', () => {
    expect(partitionList(['a[0]', 'a[3]', 'b[1]'])).toBe('a[0,3] b[1]');
    expect(partitionList([])).toBe('');
  });
});

describe('topic settings', () => {
  it('defaults to three replicas, min.insync.replicas 2 and the declared partition counts', () => {
    const config = loadConfig({});
    expect([config.kafkaReplicationFactor, config.kafkaMinInsyncReplicas, config.topicPartitions]).toEqual([3, 2, {}]);
    expect(topicSpecs('p.', config.topicPartitions).find((t) => t.name === 'p.ais.positions')?.partitions).toBe(6);
  });

  it('replaces the partition counts of the topics named, by unprefixed name', () => {
    const config = loadConfig({ PSS_TOPIC_PARTITIONS: 'ais.positions=24, security.events=12' });
    const specs = topicSpecs('p.', config.topicPartitions);
    expect(specs.find((t) => t.name === 'p.ais.positions')?.partitions).toBe(24);
    expect(specs.find((t) => t.name === 'p.security.events')?.partitions).toBe(12);
    expect(specs.find((t) => t.name === 'p.ais.static')?.partitions).toBe(6);
  });

  it('refuses unknown topics, bad pairs and zero partitions, naming the setting', () => {
    expect(() => loadConfig({ PSS_TOPIC_PARTITIONS: 'ais.nope=3' })).toThrow(/PSS_TOPIC_PARTITIONS: unknown topic "ais.nope"/);
    expect(() => loadConfig({ PSS_TOPIC_PARTITIONS: 'ais.positions' })).toThrow(/PSS_TOPIC_PARTITIONS: "ais.positions" is not topic=count/);
    expect(() => loadConfig({ PSS_TOPIC_PARTITIONS: 'ais.positions=0' })).toThrow(/at least one partition/);
    expect(() => loadConfig({ PSS_KAFKA_REPLICATION_FACTOR: '0' })).toThrow(/PSS_KAFKA_REPLICATION_FACTOR/);
  });
});
