import { newZonePresence, type VesselState, type ZonePresence } from '../rules/vessel-state.ts';

/** A zone presence as stored: `zone_id`, `presence`, and only the fields that differ from a new presence. */
export type StoredZonePresence = Pick<ZonePresence, 'zone_id' | 'presence'> & Partial<ZonePresence>;
export type StoredVesselState = Omit<VesselState, 'zones'> & { zones: StoredZonePresence[] };

const DEFAULTS = newZonePresence('');

/**
 * The stored form of a vessel's state. Most presences are a vessel in some zone's buffer with every other
 * field at its default; writing only what differs keeps a typical row under Postgres's 2 kB TOAST
 * threshold (a full one averaged 2.4 kB in the benchmark), so checkpoints are neither compressed nor
 * split into the TOAST table.
 */
export function encodeState(state: VesselState): StoredVesselState {
  return { ...state, zones: state.zones.map(encodePresence) };
}

/** Inverse of encodeState; also reads rows written in the full form. */
export function decodeState(stored: StoredVesselState): VesselState {
  return { ...stored, zones: stored.zones.map((z) => ({ ...newZonePresence(z.zone_id), ...z })) };
}

function encodePresence(p: ZonePresence): StoredZonePresence {
  const out: StoredZonePresence = { zone_id: p.zone_id, presence: p.presence };
  for (const key of Object.keys(p) as (keyof ZonePresence)[]) {
    if (key === 'zone_id' || key === 'presence') continue;
    // Only departure_fix is not a scalar, and its default is null, so a scalar comparison suffices.
    if (p[key] !== DEFAULTS[key]) (out as Record<string, unknown>)[key] = p[key];
  }
  return out;
}
