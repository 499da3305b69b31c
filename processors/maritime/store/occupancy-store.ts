import type { PoolClient } from '../../../platform/postgres.ts';
import type { ZoneRuleSet } from '../../../schemas/maritime-rules.ts';
import type { RuleZone } from '../rules/config.ts';
import { occupancyDecision, occupancyIntent, windowInForce, type OccupancyChange } from '../rules/occupancy-rule.ts';
import type { RuleIntent } from '../rules/rule-intent.ts';

/**
 * Time rules' occupancy, counted across every processor instance (vessels are partitioned by MMSI, a
 * zone's vessels are not). In the batch's own transaction: the batch's stays are written as rows of
 * maritime_zone_occupancy; then, per zone in id order (no deadlock between instances), the zone's
 * alert rows are locked FOR UPDATE and the count is read after the lock, so it includes every other
 * instance's committed rows and no two instances decide on the same crossing at once. The decision is
 * pure (rules/occupancy-rule.ts). A crash rolls all of it back with the batch, which then replays.
 *
 * Occupancy is judged when it changes (an entry or exit); a window that opens on a zone already over its
 * limit alerts at the next entry or exit.
 */
export async function applyOccupancy(
  client: PoolClient,
  changes: readonly OccupancyChange[],
  zones: ReadonlyMap<string, RuleZone>,
  ruleSets: ReadonlyMap<string, ZoneRuleSet>,
): Promise<RuleIntent[]> {
  if (changes.length === 0) return [];
  const entering = changes.filter((c) => c.inside && zones.has(c.zone_id));
  const leaving = changes.filter((c) => !c.inside);
  if (entering.length > 0) {
    await client.query(
      `INSERT INTO maritime_zone_occupancy (zone_id, mmsi, entered_at)
       SELECT z, m, to_timestamp(t / 1000) FROM unnest($1::text[], $2::int[], $3::double precision[]) AS c(z, m, t)
       ON CONFLICT (zone_id, mmsi) DO NOTHING`,
      [entering.map((c) => c.zone_id), entering.map((c) => c.mmsi), entering.map((c) => c.at)],
    );
  }
  if (leaving.length > 0) {
    await client.query(
      'DELETE FROM maritime_zone_occupancy AS o USING unnest($1::text[], $2::int[]) AS c(z, m) WHERE o.zone_id = c.z AND o.mmsi = c.m',
      [leaving.map((c) => c.zone_id), leaving.map((c) => c.mmsi)],
    );
  }
  const intents: RuleIntent[] = [];
  for (const zone_id of [...new Set(changes.map((c) => c.zone_id))].sort()) {
    const zone = zones.get(zone_id);
    const schedules = ruleSets.get(zone_id)?.time_rules?.schedules;
    if (zone === undefined || schedules === undefined) continue;
    const at = Math.max(...changes.filter((c) => c.zone_id === zone_id).map((c) => c.at));
    const names = schedules.map((s) => s.name);
    await client.query(
      'INSERT INTO maritime_occupancy_alerts (zone_id, schedule_name) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING',
      [zone_id, names],
    );
    const { rows: alerts } = await client.query<{ schedule_name: string; exceeded: boolean }>(
      'SELECT schedule_name, exceeded_at IS NOT NULL AS exceeded FROM maritime_occupancy_alerts WHERE zone_id = $1 ORDER BY schedule_name FOR UPDATE',
      [zone_id],
    );
    const { rows: [counted] } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM maritime_zone_occupancy WHERE zone_id = $1', [zone_id]);
    const count = counted?.n ?? 0;
    for (const schedule of schedules) {
      const exceeded = alerts.find((a) => a.schedule_name === schedule.name)?.exceeded ?? false;
      const decision = occupancyDecision(exceeded, count, schedule, windowInForce(schedule, zone, at));
      if (decision === 'keep') continue;
      await client.query(
        'UPDATE maritime_occupancy_alerts SET exceeded_at = $3 WHERE zone_id = $1 AND schedule_name = $2',
        [zone_id, schedule.name, decision === 'raise' ? new Date(at) : null],
      );
      if (decision === 'raise') intents.push(occupancyIntent(zone, schedule, count, at, zoneCentre(zone)));
    }
  }
  return intents;
}

/** Where an occupancy event is placed: the zone's centre where it has one, else its first vertex. */
function zoneCentre(zone: RuleZone): { lat: number; lng: number } {
  const g = (zone as RuleZone & { geometry?: { type: string; center?: number[]; centerline?: number[][]; coordinates?: unknown } }).geometry;
  const point = g?.center ?? g?.centerline?.[0] ?? firstPosition(g?.coordinates);
  return point === undefined ? { lat: 0, lng: 0 } : { lat: point[1] ?? 0, lng: point[0] ?? 0 };
}

function firstPosition(coordinates: unknown): number[] | undefined {
  let c = coordinates;
  while (Array.isArray(c) && Array.isArray(c[0])) c = c[0];
  return Array.isArray(c) ? (c as number[]) : undefined;
}
