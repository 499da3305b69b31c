// Partition maintenance of vessel_positions: the days ahead exist before their first report, days past
// retention are dropped whole, and each day that has ended gets its GiST index on position (built once,
// in bulk, see migration 0016). Every processors instance runs it hourly; creating and dropping are
// serialized in the database (an advisory lock), and an index build that meets another instance's
// build fails, is logged, and is done at the next run.
import type { Logger } from '../../platform/log.ts';
import type { Pool } from '../../platform/postgres.ts';
import { daysAhead, keepFromDay, utcDay } from './position-rows.ts';
import { createPartitions, dropPartitionsBefore, indexPartition, partitionsToIndex } from './vessel-store.ts';

export interface PartitionPolicy {
  retentionDays: number;
  ahead: number;
}

export interface Maintained {
  created: string[];
  dropped: string[];
  indexed: string[];
}

export async function maintainPartitions(pool: Pool, nowMs: number, policy: PartitionPolicy, log?: Logger): Promise<Maintained> {
  const created = await createPartitions(pool, daysAhead(nowMs, policy.ahead));
  const dropped = await dropPartitionsBefore(pool, keepFromDay(nowMs, policy.retentionDays));
  const indexed: string[] = [];
  for (const part of await partitionsToIndex(pool, utcDay(nowMs))) {
    try {
      await indexPartition(pool, part);
      indexed.push(part);
    } catch (err) {
      log?.warn({ err, partition: part }, 'vessel_positions partition index not built; retried at the next maintenance');
    }
  }
  return { created, dropped, indexed };
}
