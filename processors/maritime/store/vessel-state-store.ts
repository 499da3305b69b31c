import type { Pool, PoolClient } from '../../../platform/postgres.ts';
import { isDurable, type VesselState } from '../rules/vessel-state.ts';
import { decodeState, encodeState, type StoredVesselState } from './state-codec.ts';

/**
 * Durable per-vessel state. Only vessels that are in, near or recently out of a zone, or whose behaviour
 * rules remember something (an open episode, a gap), have a row; the previous fix of the others lives in
 * memory only (a restart forgets it: the first report after it cannot be judged a jump);
 * the processor writes a vessel's row in the same transaction as the events its state change caused.
 */
export async function loadVesselStates(pool: Pool, mmsis: number[]): Promise<Map<number, VesselState>> {
  const out = new Map<number, VesselState>();
  if (mmsis.length === 0) return out;
  const { rows } = await pool.query<{ mmsi: number; state: StoredVesselState }>(
    'SELECT mmsi, state FROM maritime_vessel_state WHERE mmsi = ANY($1::int[])',
    [mmsis],
  );
  for (const row of rows) out.set(row.mmsi, decodeState(row.state));
  return out;
}

/**
 * Upserts durable states and deletes those with nothing left to keep. A stored state is replaced
 * only by one at least as new: an instance that lost a partition in a rebalance may still finish a batch
 * of older reports, and must not overwrite what the new owner wrote since.
 */
export async function saveVesselStates(client: PoolClient, states: VesselState[]): Promise<void> {
  const kept = states.filter(isDurable);
  const dropped = states.filter((s) => !isDurable(s));
  if (kept.length > 0) {
    await client.query(
      `INSERT INTO maritime_vessel_state (mmsi, state, last_seen_at, zone_ids)
       SELECT (s->>'mmsi')::int, s, to_timestamp((s->>'last_seen_at')::double precision / 1000),
              ARRAY(SELECT z->>'zone_id' FROM jsonb_array_elements(s->'zones') AS z)
         FROM jsonb_array_elements($1::jsonb) AS s
       ON CONFLICT (mmsi) DO UPDATE
         SET state = EXCLUDED.state, last_seen_at = EXCLUDED.last_seen_at, zone_ids = EXCLUDED.zone_ids, updated_at = now()
       WHERE maritime_vessel_state.last_seen_at <= EXCLUDED.last_seen_at`,
      [JSON.stringify(kept.map(encodeState))],
    );
  }
  if (dropped.length > 0) {
    await client.query(
      `DELETE FROM maritime_vessel_state AS t
        USING unnest($1::int[], $2::double precision[]) AS d(mmsi, seen_ms)
        WHERE t.mmsi = d.mmsi AND t.last_seen_at <= to_timestamp(d.seen_ms / 1000)`,
      [dropped.map((s) => s.mmsi), dropped.map((s) => s.last_seen_at)],
    );
  }
}

/** States of the vessels that track one zone (inside, in its buffer, or within its reset window). */
export async function vesselStatesInZone(pool: Pool, zoneId: string): Promise<VesselState[]> {
  const { rows } = await pool.query<{ state: StoredVesselState }>(
    'SELECT state FROM maritime_vessel_state WHERE zone_ids @> ARRAY[$1::text]',
    [zoneId],
  );
  return rows.map((r) => decodeState(r.state));
}
