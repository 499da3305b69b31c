import type { RunningRole } from '../../../platform/context.ts';
import type { Logger } from '../../../platform/log.ts';
import { counter } from '../../../platform/metrics.ts';
import { startRetention } from '../../../platform/periodic-job.ts';
import { deleteInBatches, type Pool, type PoolClient } from '../../../platform/postgres.ts';
import type { ZoneRuleSet } from '../../../schemas/maritime-rules.ts';
import type { RuleZone } from '../rules/config.ts';
import {
  distanceMeters,
  encounterIntent,
  encounterParams,
  pairObservations,
  PARTNER_FRESH_MS,
  stepPair,
  type EncounterFix,
  type EncounterParams,
  type PairEpisode,
  type PairKey,
} from '../rules/encounter-rule.ts';
import type { RuleIntent } from '../rules/rule-intent.ts';

/**
 * Encounters, paired across every processor instance (vessels are partitioned by MMSI; the two vessels
 * of an encounter may be on different instances). In the batch's own transaction:
 *   1. the neighbours of the batch's slow fixes: other vessels' rows within the zone's distance
 *      (ST_DWithin on geography, GiST), the partners of the batch's vessels' open pairs, and pairs of
 *      vessels both in this batch (found in memory);
 *   2. those pairs' rows created if missing and locked, in key order and in one upsert (no deadlock
 *      between instances), then the partners' fixes read after the lock, so they include what another
 *      instance committed meanwhile;
 *   3. each pair's episode stepped through its observations in event time (rules/encounter-rule.ts,
 *      pure); the row's `last_at` only moves forward, so a replayed batch, or the second of two
 *      instances judging the same instant, decides nothing again, and event ids come from the pair and
 *      the episode's start;
 *   4. the batch's own vessels' latest fixes written (slow) or removed (faster, or left the zone), and
 *      the pairs' rows updated.
 * A crash rolls all of it back with the batch, which then replays. No statement at all for a batch
 * without slow vessels in zones with encounter rules.
 */
export async function applyEncounters(client: PoolClient, fixes: readonly EncounterFix[], zones: ReadonlyMap<string, RuleZone>, ruleSets: ReadonlyMap<string, ZoneRuleSet>): Promise<RuleIntent[]> {
  if (fixes.length === 0) return [];
  const paramsOf = new Map<string, EncounterParams>();
  for (const f of fixes) {
    const rule = ruleSets.get(f.zone_id)?.encounter_rules;
    if (rule !== undefined && zones.get(f.zone_id)?.active === true && !paramsOf.has(f.zone_id)) paramsOf.set(f.zone_id, encounterParams(rule));
  }
  const own = groupByVessel([...fixes].sort((a, b) => a.t - b.t));
  const judged = [...own.values()].filter((list) => paramsOf.has(list[0]!.zone_id));
  const slow = judged.flat().filter((f) => f.slow);

  const candidates = new Map<string, PairKey>();
  const addPair = (zone_id: string, a: number, b: number) => {
    const key = { zone_id, mmsi_lo: Math.min(a, b), mmsi_hi: Math.max(a, b) };
    candidates.set(pairId(key), key);
  };
  if (judged.length > 0) {
    const { rows } = await client.query<{ zone_id: string; mmsi: number; other: number }>(
      `WITH o AS (SELECT * FROM unnest($1::text[], $2::int[], $3::float8[], $4::float8[], $5::float8[]) AS o(z, m, lat, lon, r)),
            v AS (SELECT DISTINCT z, m FROM unnest($6::text[], $7::int[]) AS v(z, m))
       SELECT DISTINCT o.z AS zone_id, o.m AS mmsi, f.mmsi AS other
         FROM o JOIN maritime_encounter_fixes f
           ON f.zone_id = o.z AND f.mmsi <> o.m AND ST_DWithin(f.geog, ST_SetSRID(ST_MakePoint(o.lon, o.lat), 4326)::geography, o.r)
       UNION
       SELECT p.zone_id, v.m, p.mmsi_hi FROM v JOIN maritime_encounter_pairs p ON p.open AND p.mmsi_lo = v.m AND p.zone_id = v.z
       UNION
       SELECT p.zone_id, v.m, p.mmsi_lo FROM v JOIN maritime_encounter_pairs p ON p.open AND p.mmsi_hi = v.m AND p.zone_id = v.z`,
      [
        slow.map((f) => f.zone_id),
        slow.map((f) => f.mmsi),
        slow.map((f) => f.lat),
        slow.map((f) => f.lon),
        slow.map((f) => (paramsOf.get(f.zone_id) as EncounterParams).max_distance_meters),
        judged.map((list) => list[0]!.zone_id),
        judged.map((list) => list[0]!.mmsi),
      ],
    );
    for (const r of rows) addPair(r.zone_id, r.mmsi, r.other);
    for (const [zone_id, a, b] of closeInBatch(judged, paramsOf)) addPair(zone_id, a, b);
  }

  const intents: RuleIntent[] = [];
  if (candidates.size > 0) {
    const keys = [...candidates.values()].sort(comparePairs);
    const keyArgs = [keys.map((k) => k.zone_id), keys.map((k) => k.mmsi_lo), keys.map((k) => k.mmsi_hi)];
    // One statement creates missing pairs (a closed episode that has judged nothing yet) and locks every
    // pair, existing or new, in key order: two instances lock in the same order, so neither waits on the
    // other in a cycle. After waiting on another instance it reads that instance's committed episode.
    const { rows: locked } = await client.query<{ zone_id: string; mmsi_lo: number; mmsi_hi: number; open: boolean; since: number; last_close_at: number; last_at: number; closest_m: number; fired: boolean }>(
      `INSERT INTO maritime_encounter_pairs AS p (zone_id, mmsi_lo, mmsi_hi, open, since, last_close_at, last_at, closest_m, fired)
       SELECT z, lo, hi, false, 'epoch', 'epoch', 'epoch', 0, false FROM unnest($1::text[], $2::int[], $3::int[]) WITH ORDINALITY AS k(z, lo, hi, n) ORDER BY n
       ON CONFLICT (zone_id, mmsi_lo, mmsi_hi) DO UPDATE SET open = p.open
       RETURNING p.zone_id, p.mmsi_lo, p.mmsi_hi, p.open, p.closest_m, p.fired,
                 extract(epoch FROM p.since) * 1000 AS since, extract(epoch FROM p.last_close_at) * 1000 AS last_close_at, extract(epoch FROM p.last_at) * 1000 AS last_at`,
      keyArgs,
    );
    const vessels = [...new Set(keys.flatMap((k) => [`${k.zone_id}\u0000${k.mmsi_lo}`, `${k.zone_id}\u0000${k.mmsi_hi}`]))].map((id) => id.split('\u0000') as [string, string]);
    const { rows: stored } = await client.query<{ zone_id: string; mmsi: number; t: number; lat: number; lon: number }>(
      `SELECT f.zone_id, f.mmsi, extract(epoch FROM f.reported_at) * 1000 AS t, f.lat, f.lon
         FROM maritime_encounter_fixes f JOIN unnest($1::text[], $2::int[]) AS v(z, m) ON f.zone_id = v.z AND f.mmsi = v.m`,
      [vessels.map((v) => v[0]), vessels.map((v) => Number(v[1]))],
    );
    const storedOf = new Map(stored.map((r) => [vesselId(r.zone_id, r.mmsi), { zone_id: r.zone_id, mmsi: r.mmsi, t: Number(r.t), lat: r.lat, lon: r.lon, slow: true }]));
    const timeline = (zone_id: string, mmsi: number): EncounterFix[] => {
      const batch = own.get(vesselId(zone_id, mmsi)) ?? [];
      const before = storedOf.get(vesselId(zone_id, mmsi));
      return before !== undefined && (batch[0] === undefined || before.t < batch[0].t) ? [before, ...batch] : batch;
    };
    const updates: (PairKey & PairEpisode)[] = [];
    for (const row of locked) {
      const key: PairKey = { zone_id: row.zone_id, mmsi_lo: row.mmsi_lo, mmsi_hi: row.mmsi_hi };
      const params = paramsOf.get(key.zone_id);
      const zone = zones.get(key.zone_id);
      if (params === undefined || zone === undefined) continue;
      let episode: PairEpisode | undefined = { open: row.open, since: Number(row.since), last_close_at: Number(row.last_close_at), last_at: Number(row.last_at), closest_m: row.closest_m, fired: row.fired };
      const first = episode;
      for (const obs of pairObservations(timeline(key.zone_id, key.mmsi_lo), timeline(key.zone_id, key.mmsi_hi))) {
        const stepped = stepPair(episode, obs, params);
        if (stepped.outcome !== undefined && stepped.episode !== undefined) {
          intents.push(encounterIntent(stepped.outcome, zone, key, stepped.outcome === 'encounter' ? stepped.episode : (episode as PairEpisode), params, obs.at, { lat: obs.lat, lng: obs.lon }));
        }
        episode = stepped.episode;
      }
      if (episode !== undefined && episode !== first) updates.push({ ...key, ...episode });
    }
    if (updates.length > 0) {
      await client.query(
        `UPDATE maritime_encounter_pairs AS p
            SET open = u.open, since = to_timestamp(u.since / 1000), last_close_at = to_timestamp(u.lc / 1000),
                last_at = to_timestamp(u.la / 1000), closest_m = u.d, fired = u.fired
           FROM unnest($1::text[], $2::int[], $3::int[], $4::bool[], $5::float8[], $6::float8[], $7::float8[], $8::float8[], $9::bool[]) AS u(z, lo, hi, open, since, lc, la, d, fired)
          WHERE p.zone_id = u.z AND p.mmsi_lo = u.lo AND p.mmsi_hi = u.hi`,
        [
          updates.map((u) => u.zone_id), updates.map((u) => u.mmsi_lo), updates.map((u) => u.mmsi_hi), updates.map((u) => u.open),
          updates.map((u) => u.since), updates.map((u) => u.last_close_at), updates.map((u) => u.last_at), updates.map((u) => u.closest_m), updates.map((u) => u.fired),
        ],
      );
    }
  }

  await writeFixes(client, [...own.values()].map((list) => list[list.length - 1]!));
  return intents;
}

/** Each vessel's latest fix: slow replaces an older row; not slow removes a row no newer than itself. */
async function writeFixes(client: PoolClient, latest: EncounterFix[]): Promise<void> {
  const slow = latest.filter((f) => f.slow);
  const gone = latest.filter((f) => !f.slow);
  if (slow.length > 0) {
    await client.query(
      `INSERT INTO maritime_encounter_fixes AS f (zone_id, mmsi, reported_at, lat, lon, geog)
       SELECT z, m, to_timestamp(t / 1000), lat, lon, ST_SetSRID(ST_MakePoint(lon, lat), 4326)::geography
         FROM unnest($1::text[], $2::int[], $3::float8[], $4::float8[], $5::float8[]) AS u(z, m, t, lat, lon)
       ON CONFLICT (zone_id, mmsi) DO UPDATE SET reported_at = EXCLUDED.reported_at, lat = EXCLUDED.lat, lon = EXCLUDED.lon, geog = EXCLUDED.geog
        WHERE f.reported_at < EXCLUDED.reported_at`,
      [slow.map((f) => f.zone_id), slow.map((f) => f.mmsi), slow.map((f) => f.t), slow.map((f) => f.lat), slow.map((f) => f.lon)],
    );
  }
  if (gone.length > 0) {
    await client.query(
      `DELETE FROM maritime_encounter_fixes AS f USING unnest($1::text[], $2::int[], $3::float8[]) AS u(z, m, t)
        WHERE f.zone_id = u.z AND f.mmsi = u.m AND f.reported_at <= to_timestamp(u.t / 1000)`,
      [gone.map((f) => f.zone_id), gone.map((f) => f.mmsi), gone.map((f) => f.t)],
    );
  }
}

const prunedPairs = counter('pss_maritime_encounter_pairs_pruned_total', 'Closed encounter pair rows deleted a week after their last judged instant');

/** Closed pairs are kept this long after their last judged instant (event time), then deleted. */
export const CLOSED_PAIR_KEEP_DAYS = 7;

/**
 * Deletes closed pairs whose last judged instant is more than `days` days old, in batches that skip rows an
 * instance holds. A closed row only guards its last episode against being judged again by a replay of
 * recent batches (crash recovery re-reads minutes); a pair that meets again later starts a new row.
 */
export async function pruneClosedPairs(pool: Pool, days: number, batchSize = 5_000): Promise<number> {
  return deleteInBatches(
    pool,
    `DELETE FROM maritime_encounter_pairs WHERE ctid IN (
       SELECT ctid FROM maritime_encounter_pairs WHERE NOT open AND last_at < now() - make_interval(days => $1)
        LIMIT $2 FOR UPDATE SKIP LOCKED)`,
    [days],
    batchSize,
    prunedPairs,
  );
}

/** The hourly pruning of a processors instance (once per instance, whatever its zone workers). */
export function startPairPruning(ctx: { pool: Pool; log: Logger }): RunningRole {
  return startRetention({ name: 'encounter-pair-pruning', days: CLOSED_PAIR_KEEP_DAYS, log: ctx.log, expire: (days) => pruneClosedPairs(ctx.pool, days), deletedMessage: 'closed encounter pairs deleted' });
}

/** Pairs of vessels both in this batch with fixes close in space and time (neither is in the table yet). */
function closeInBatch(judged: EncounterFix[][], paramsOf: ReadonlyMap<string, EncounterParams>): [string, number, number][] {
  const out: [string, number, number][] = [];
  for (let i = 0; i < judged.length; i++) {
    const a = judged[i]!;
    const max = (paramsOf.get(a[0]!.zone_id) as EncounterParams).max_distance_meters;
    for (let j = i + 1; j < judged.length; j++) {
      const b = judged[j]!;
      if (b[0]!.zone_id !== a[0]!.zone_id) continue;
      const near = a.some((fa) => fa.slow && b.some((fb) => fb.slow && Math.abs(fa.t - fb.t) <= PARTNER_FRESH_MS && distanceMeters(fa.lat, fa.lon, fb.lat, fb.lon) <= max));
      if (near) out.push([a[0]!.zone_id, a[0]!.mmsi, b[0]!.mmsi]);
    }
  }
  return out;
}

function groupByVessel(fixes: EncounterFix[]): Map<string, EncounterFix[]> {
  const out = new Map<string, EncounterFix[]>();
  for (const f of fixes) {
    const id = vesselId(f.zone_id, f.mmsi);
    const list = out.get(id);
    if (list === undefined) out.set(id, [f]);
    else list.push(f);
  }
  return out;
}

const vesselId = (zone_id: string, mmsi: number) => `${zone_id}\u0000${mmsi}`;
const pairId = (k: PairKey) => `${k.zone_id}\u0000${k.mmsi_lo}\u0000${k.mmsi_hi}`;

function comparePairs(a: PairKey, b: PairKey): number {
  return a.zone_id < b.zone_id ? -1 : a.zone_id > b.zone_id ? 1 : a.mmsi_lo - b.mmsi_lo || a.mmsi_hi - b.mmsi_hi;
}
