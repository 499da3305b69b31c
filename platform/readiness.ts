import { recentFailure, type Pool } from './postgres.ts';
import { KafkaAdmin, stuckConsumers, type KafkaOptions } from './kafka/index.ts';
import { withDeadline } from './deadline.ts';
import { describeDrift, partitionList, replicaHealth, topicDrift, type DeclaredTopic, type ReplicaHealth, type TopicDrift } from './topic-check.ts';

export interface DependencyStatus {
  ok: boolean;
  latency_ms: number;
  error?: string;
  /** What is degraded though the dependency works (a check resolving with a text). */
  detail?: string;
}

/** Rejects when the dependency fails; resolves with a text when it works but degraded. */
export type ReadinessCheck = () => Promise<void | string>;

const CHECK_TIMEOUT_MS = 2_000;

/** Runs every check concurrently, each bounded by a timeout, and reports per dependency. */
export async function checkReadiness(checks: Record<string, ReadinessCheck>): Promise<{ ready: boolean; checks: Record<string, DependencyStatus> }> {
  const entries = await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      const started = performance.now();
      try {
        const detail = await withDeadline(check(), CHECK_TIMEOUT_MS);
        return [name, { ok: true, latency_ms: Math.round(performance.now() - started), ...(typeof detail === 'string' ? { detail } : {}) }] as const;
      } catch (err) {
        return [name, { ok: false, latency_ms: Math.round(performance.now() - started), error: (err as Error).message }] as const;
      }
    }),
  );
  return { ready: entries.every(([, s]) => s.ok), checks: Object.fromEntries(entries) };
}

/**
 * Postgres answers a probe, and no query of the pool timed out and no connection of it was lost lately: a
 * connection that froze or was reset under another part of the service (the processor, the relay) is
 * reported though the probe's own connection works.
 */
export function postgresCheck(pool: Pool): ReadinessCheck {
  return async () => {
    const failed = recentFailure(pool);
    if (failed !== undefined) throw new Error(failed);
    await pool.query('SELECT 1');
  };
}

/** Uses a fresh admin connection per probe, so a restarted broker is seen again without restarting the service. */
export function kafkaCheck(opts: KafkaOptions): ReadinessCheck {
  return async () => {
    const admin = new KafkaAdmin(opts, CHECK_TIMEOUT_MS);
    try {
      await admin.ping();
    } finally {
      await admin.close().catch(() => undefined);
    }
  };
}

/** Every consumer of the service finishes its batches: one failing or hanging for a minute is named (kafka.ts). */
export function consumersCheck(opts: KafkaOptions): ReadinessCheck {
  return async () => {
    const stuck = stuckConsumers(opts);
    if (stuck.length > 0) throw new Error(`stuck: ${stuck.join('; ')}`);
  };
}

export interface TopicStatus {
  drift: TopicDrift[];
  replicas: ReplicaHealth;
}

/** The declared topics against the cluster now (a fresh admin connection): drift and replica state. For /readyz and the health model. */
export async function topicStatus(opts: KafkaOptions, declared: DeclaredTopic[], timeoutMs = CHECK_TIMEOUT_MS): Promise<TopicStatus> {
  const admin = new KafkaAdmin(opts, timeoutMs);
  try {
    const described = await admin.describeTopics(declared);
    return { drift: topicDrift(declared, described), replicas: replicaHealth(declared, described) };
  } finally {
    await admin.close().catch(() => undefined);
  }
}

/**
 * Fails while a partition of a declared topic has no leader or fewer in-sync replicas than
 * min.insync.replicas (writes to it are refused); works, with the names in its detail, while replicas are
 * out of sync (a broker lost or catching up) or a topic differs from its declaration.
 */
export function topicsCheck(opts: KafkaOptions, declared: DeclaredTopic[]): ReadinessCheck {
  return async () => {
    let status: TopicStatus;
    try {
      status = await topicStatus(opts, declared);
    } catch (err) {
      // The kafka check names an unreachable cluster; this one is about the topics on a reachable one.
      return `not checked: ${(err as Error).message}`;
    }
    const { drift, replicas } = status;
    const refused = [
      ...(replicas.offline.length > 0 ? [`no leader: ${partitionList(replicas.offline)}`] : []),
      ...(replicas.belowMinInsync.length > 0 ? [`fewer in-sync replicas than min.insync.replicas: ${partitionList(replicas.belowMinInsync)}`] : []),
    ];
    if (refused.length > 0) throw new Error(refused.join('; '));
    const degraded = [
      ...(replicas.underReplicated.length > 0 ? [`under-replicated: ${partitionList(replicas.underReplicated)}`] : []),
      ...drift.map((d) => `drift: ${describeDrift(d)}`),
    ];
    return degraded.length > 0 ? degraded.join('; ') : undefined;
  };
}
