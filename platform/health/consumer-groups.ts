// Each consumer group of this instance as a component of the health model, `consumer_group:<group>`,
// with the status the lag rules give it (platform/kafka/lag-status.ts, Burrow-style: degraded when the
// committed offset stands still while the lag grows, not when the lag is merely non-zero).
import { lagSamplerOf, type KafkaOptions } from '../kafka/index.ts';
import type { ComponentHealth, HealthSource } from './model.ts';

export function consumerGroupSource(kafka: KafkaOptions): HealthSource {
  return async () => {
    const out: Record<string, ComponentHealth> = {};
    for (const group of lagSamplerOf(kafka)?.statuses() ?? []) {
      out[`consumer_group:${group.group}`] = { status: group.status, reason: group.status === 'ok' ? '' : group.reason };
    }
    return out;
  };
}
