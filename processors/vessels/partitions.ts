// Partition maintenance of vessel_positions: the days ahead exist before their first report, and days
// past retention are dropped whole. Every processors instance runs it hourly; both steps are idempotent
// and serialized in the database (an advisory lock), so instances never trip over each other.
import type { Pool } from '../../platform/postgres.ts';
import { daysAhead, keepFromDay } from './position-rows.ts';
import { createPartitions, dropPartitionsBefore } from './vessel-store.ts';

export interface PartitionPolicy {
  retentionDays: number;
  ahead: number;
}

export async function maintainPartitions(pool: Pool, nowMs: number, policy: PartitionPolicy): Promise<{ created: string[]; dropped: string[] }> {
  const created = await createPartitions(pool, daysAhead(nowMs, policy.ahead));
  const dropped = await dropPartitionsBefore(pool, keepFromDay(nowMs, policy.retentionDays));
  return { created, dropped };
}
