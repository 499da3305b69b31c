// Declared topic settings against what the cluster describes: pure, so start-up, /readyz and `pss topics`
// judge a cluster the same way (and unit tests cover the rules). The admin (platform/kafka/admin.ts) reads
// the cluster; this says what is wrong with it.
import type { TopicSpec } from './topics.ts';

/** Replication as requested by the settings. */
export interface ReplicationRequest {
  replicationFactor: number;
  minInsyncReplicas: number;
}

/** Replication as applied on a cluster of `brokers` brokers. */
export interface Replication {
  replicationFactor: number;
  minInsyncReplicas: number;
  /** The factor asked for, when the cluster has fewer brokers than that. */
  cappedFrom?: number;
}

/**
 * The factor is capped at the brokers there are (a topic cannot have more replicas), and min.insync.replicas
 * at the factor less one: with acks=all, one broker lost must not refuse writes, so 3 replicas keep 2 in sync.
 */
export function replicationFor(request: ReplicationRequest, brokers: number): Replication {
  const replicationFactor = Math.max(1, Math.min(request.replicationFactor, brokers));
  const minInsyncReplicas = Math.max(1, Math.min(request.minInsyncReplicas, replicationFactor - 1));
  return { replicationFactor, minInsyncReplicas, ...(replicationFactor < request.replicationFactor ? { cappedFrom: request.replicationFactor } : {}) };
}

/** A topic as the service wants it on the cluster. */
export interface DeclaredTopic {
  name: string;
  partitions: number;
  replicationFactor: number;
  config: Record<string, string>;
}

export function declaredTopics(specs: TopicSpec[], replication: Replication): DeclaredTopic[] {
  return specs.map((s) => ({
    name: s.name,
    partitions: s.partitions,
    replicationFactor: replication.replicationFactor,
    config: { ...s.config, 'min.insync.replicas': String(replication.minInsyncReplicas) },
  }));
}

export interface DescribedPartition {
  partition: number;
  /** Broker id of the leader; -1 when none (offline). */
  leader: number;
  replicas: number[];
  isr: number[];
}

/** A topic as the cluster describes it. */
export interface DescribedTopic {
  name: string;
  partitions: DescribedPartition[];
  /** Effective values of the declared config keys. */
  config: Record<string, string | undefined>;
}

export type DriftKind = 'missing' | 'partitions' | 'replicas' | 'config';

export interface TopicDrift {
  topic: string;
  kind: DriftKind;
  /** The config key, for kind 'config'. */
  key?: string;
  declared: string;
  actual: string;
  /** `pss topics --apply` can mend it (create, add partitions, set a config); replicas need a reassignment. */
  fixable: boolean;
}

/**
 * What differs from the declaration in the direction that matters: fewer partitions or replicas than
 * declared, a declared config with another value (cleanup policy, retention, min.insync.replicas), a topic
 * missing. More partitions or replicas than declared is an operator's choice, not drift.
 */
export function topicDrift(declared: DeclaredTopic[], described: DescribedTopic[]): TopicDrift[] {
  const byName = new Map(described.map((d) => [d.name, d]));
  const out: TopicDrift[] = [];
  for (const want of declared) {
    const have = byName.get(want.name);
    if (!have) {
      out.push({ topic: want.name, kind: 'missing', declared: 'exists', actual: 'missing', fixable: true });
      continue;
    }
    if (have.partitions.length < want.partitions) {
      out.push({ topic: want.name, kind: 'partitions', declared: String(want.partitions), actual: String(have.partitions.length), fixable: true });
    }
    const replicas = Math.min(...have.partitions.map((p) => p.replicas.length));
    if (have.partitions.length > 0 && replicas < want.replicationFactor) {
      out.push({ topic: want.name, kind: 'replicas', declared: String(want.replicationFactor), actual: String(replicas), fixable: false });
    }
    for (const [key, value] of Object.entries(want.config)) {
      const actual = have.config[key];
      if (actual !== value) out.push({ topic: want.name, kind: 'config', key, declared: value, actual: actual ?? 'unset', fixable: true });
    }
  }
  return out;
}

/** One line per drift, naming the topic, for logs, /readyz and `pss topics`. */
export function describeDrift(d: TopicDrift): string {
  if (d.kind === 'missing') return `${d.topic}: missing (--apply creates it)`;
  const what = d.kind === 'config' ? (d.key as string) : d.kind;
  const how = d.kind === 'replicas' ? 'needs a partition reassignment (kafka-reassign-partitions); --apply cannot raise it' : '--apply sets it';
  return `${d.topic}: ${what} ${d.actual}, declared ${d.declared} (${how})`;
}

/** The replica state of the partitions of the declared topics, beside the declaration. */
export interface ReplicaHealth {
  /** `topic[partition]` without a leader: nothing is written to or read from them. */
  offline: string[];
  /** `topic[partition]` with fewer in-sync replicas than min.insync.replicas: writes are refused (NOT_ENOUGH_REPLICAS). */
  belowMinInsync: string[];
  /** `topic[partition]` with a replica out of sync (a broker down or catching up): still written, with less margin. */
  underReplicated: string[];
}

export function replicaHealth(declared: DeclaredTopic[], described: DescribedTopic[]): ReplicaHealth {
  const byName = new Map(described.map((d) => [d.name, d]));
  const out: ReplicaHealth = { offline: [], belowMinInsync: [], underReplicated: [] };
  for (const want of declared) {
    const have = byName.get(want.name);
    if (!have) continue;
    const minInsync = Number(have.config['min.insync.replicas'] ?? want.config['min.insync.replicas'] ?? 1);
    for (const p of have.partitions) {
      const id = `${want.name}[${p.partition}]`;
      if (p.leader < 0) out.offline.push(id);
      else if (p.isr.length < minInsync) out.belowMinInsync.push(id);
      if (p.isr.length < p.replicas.length) out.underReplicated.push(id);
    }
  }
  return out;
}

/** `a[0], a[3], b[1]` as `a[0,3] b[1]`: short enough for a /readyz line with every partition of a lost broker. */
export function partitionList(ids: string[]): string {
  const byTopic = new Map<string, string[]>();
  for (const id of ids) {
    const match = /^(.*)\[(\d+)\]$/.exec(id);
    const [topic, partition] = match ? [match[1] as string, match[2] as string] : [id, ''];
    byTopic.set(topic, [...(byTopic.get(topic) ?? []), partition]);
  }
  return [...byTopic].map(([topic, parts]) => `${topic}[${parts.join(',')}]`).join(' ');
}
