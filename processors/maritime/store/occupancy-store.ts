import type { PoolClient } from '../../../platform/postgres.ts';
import type { ZoneRuleSet } from '../../../schemas/maritime-rules.ts';
import type { RuleZone } from '../rules/config.ts';
import { occupancyDecision, occupancyIntent, windowInForce, type OccupancyChange } from '../rules/occupancy-rule.ts';
import type { RuleIntent } from '../rules/rule-intent.ts';

/**
 * Time rules' occupancy, counted across every processor instance (vessels are partitioned by MMSI, a
 * zone's vessels are not). In the batch's own transaction: the batch's stays are written as rows of
 * maritime_zone_occupancy; then the alert rows of every zone the batch touched are locked FOR UPDATE
 * (in zone order: no deadlock between instances) and the counts are read after the lock, so they
 * include every other instance's committed rows and no two instances decide on the same crossing at
 * once. The decision is pure (rules/occupancy-rule.ts). A crash rolls all of it back with the batch,
 * which then replays. Five statements per batch, however many zones it touches.
 *
 * Occupancy is judged when it changes (an entry or exit, or a vessel already inside counted for the first
 * time) and in the zones of `windows`, whose schedule windows opened or closed by event time `windows.at`
 * (rules/occupancy-rule.ts ScheduleWatch). Stays that go on cost one row of the INSERT each and no lock.
 */
export async function applyOccupancy(
  client: PoolClient,
  changes: readonly OccupancyChange[],
  zones: ReadonlyMap<string, RuleZone>,
  ruleSets: ReadonlyMap<string, ZoneRuleSet>,
  windows: { zones: readonly string[]; at: number } = { zones: [], at: 0 },
): Promise<RuleIntent[]> {
  const hasTimeRules = (zone_id: string) => zones.has(zone_id) && ruleSets.get(zone_id)?.time_rules !== undefined;
  const ruled = changes.filter((c) => hasTimeRules(c.zone_id));
  const opened = windows.zones.filter(hasTimeRules);
  if (ruled.length === 0 && opened.length === 0) return [];
  const entering = ruled.filter((c) => c.inside);
  const leaving = ruled.filter((c) => !c.inside);
  let added = new Set<string>();
  if (entering.length > 0) {
    const { rows } = await client.query<{ zone_id: string; mmsi: number }>(
      `INSERT INTO maritime_zone_occupancy (zone_id, mmsi, entered_at)
       SELECT z, m, to_timestamp(t / 1000) FROM unnest($1::text[], $2::int[], $3::double precision[]) AS c(z, m, t)
       ON CONFLICT (zone_id, mmsi) DO NOTHING
       RETURNING zone_id, mmsi`,
      [entering.map((c) => c.zone_id), entering.map((c) => c.mmsi), entering.map((c) => c.at)],
    );
    added = new Set(rows.map((r) => `${r.zone_id}/${r.mmsi}`));
  }
  // A stay that goes on changes the count only when its row was missing (counted late, see OccupancyChange).
  const relevant = ruled.filter((c) => c.still !== true || added.has(`${c.zone_id}/${c.mmsi}`));
  if (relevant.length === 0 && opened.length === 0) return [];
  if (leaving.length > 0) {
    await client.query(
      'DELETE FROM maritime_zone_occupancy AS o USING unnest($1::text[], $2::int[]) AS c(z, m) WHERE o.zone_id = c.z AND o.mmsi = c.m',
      [leaving.map((c) => c.zone_id), leaving.map((c) => c.mmsi)],
    );
  }
  const touched = [...new Set([...relevant.map((c) => c.zone_id), ...opened])].sort();
  const windowAt = new Set(opened);
  const pairs = touched.flatMap((zone_id) => (ruleSets.get(zone_id)?.time_rules?.schedules ?? []).map((s) => [zone_id, s.name] as const));
  await client.query(
    'INSERT INTO maritime_occupancy_alerts (zone_id, schedule_name) SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT DO NOTHING',
    [pairs.map((p) => p[0]), pairs.map((p) => p[1])],
  );
  const { rows: alerts } = await client.query<{ zone_id: string; schedule_name: string; exceeded: boolean }>(
    `SELECT zone_id, schedule_name, exceeded_at IS NOT NULL AS exceeded FROM maritime_occupancy_alerts
      WHERE zone_id = ANY($1::text[]) ORDER BY zone_id, schedule_name FOR UPDATE`,
    [touched],
  );
  const { rows: counted } = await client.query<{ zone_id: string; n: number; latest: number }>(
    `SELECT zone_id, count(*)::int AS n, extract(epoch FROM max(entered_at))::float8 * 1000 AS latest
       FROM maritime_zone_occupancy WHERE zone_id = ANY($1::text[]) GROUP BY zone_id`,
    [touched],
  );
  const countOf = new Map(counted.map((r) => [r.zone_id, r]));
  const intents: RuleIntent[] = [];
  const updates: { zone_id: string; name: string; at: number | null }[] = [];
  for (const zone_id of touched) {
    const zone = zones.get(zone_id) as RuleZone;
    // At the crossing that changed the count, or at the latest counted stay's start when that is later:
    // another instance (or worker) may have counted a vessel that entered after this batch's crossing,
    // and the zone held them all only from then, in whatever order the instances got there. At the
    // window's edge where nothing crossed.
    const crossed = relevant.reduce((max, c) => (c.zone_id === zone_id && c.at > max ? c.at : max), 0);
    const { n: count, latest } = countOf.get(zone_id) ?? { n: 0, latest: 0 };
    const at = crossed === 0 && windowAt.has(zone_id) ? windows.at : Math.max(crossed, latest);
    for (const schedule of ruleSets.get(zone_id)?.time_rules?.schedules ?? []) {
      const exceeded = alerts.find((a) => a.zone_id === zone_id && a.schedule_name === schedule.name)?.exceeded ?? false;
      const decision = occupancyDecision(exceeded, count, schedule, windowInForce(schedule, zone, at));
      if (decision === 'keep') continue;
      updates.push({ zone_id, name: schedule.name, at: decision === 'raise' ? at : null });
      if (decision === 'raise') intents.push(occupancyIntent(zone, schedule, count, at, zoneCentre(zone)));
    }
  }
  if (updates.length > 0) {
    await client.query(
      `UPDATE maritime_occupancy_alerts AS a SET exceeded_at = CASE WHEN u.t IS NULL THEN NULL ELSE to_timestamp(u.t / 1000) END
         FROM unnest($1::text[], $2::text[], $3::double precision[]) AS u(z, s, t)
        WHERE a.zone_id = u.z AND a.schedule_name = u.s`,
      [updates.map((u) => u.zone_id), updates.map((u) => u.name), updates.map((u) => u.at)],
    );
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
