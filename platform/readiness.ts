import { recentFailure, type Pool } from './postgres.ts';
import { KafkaAdmin, stuckConsumers, type KafkaOptions } from './kafka/index.ts';
import { withDeadline } from './deadline.ts';

export interface DependencyStatus {
  ok: boolean;
  latency_ms: number;
  error?: string;
}

export type ReadinessCheck = () => Promise<void>;

const CHECK_TIMEOUT_MS = 2_000;

/** Runs every check concurrently, each bounded by a timeout, and reports per dependency. */
export async function checkReadiness(checks: Record<string, ReadinessCheck>): Promise<{ ready: boolean; checks: Record<string, DependencyStatus> }> {
  const entries = await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      const started = performance.now();
      try {
        await withDeadline(check(), CHECK_TIMEOUT_MS);
        return [name, { ok: true, latency_ms: Math.round(performance.now() - started) }] as const;
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
