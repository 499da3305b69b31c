// The synthetic port's zones stored the way the zone API stores them (ZoneStore), for the benchmarks that
// run the zone processor on them.
import type pg from 'pg';
import { ZoneStore } from '../../processors/maritime/zones/zone-store.ts';
import type { RandomPort } from './random-port.ts';

/** Stores `count` zones of `port` (zone i is `port.zone(i)`); returns their names in order. */
export async function storePortZones(pool: pg.Pool, port: RandomPort, count: number): Promise<string[]> {
  const repo = new ZoneStore(pool);
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    const { id: _id, created_at: _c, updated_at: _u, ...zone } = port.zone(i);
    names.push((await repo.create(zone)).name);
  }
  return names;
}
