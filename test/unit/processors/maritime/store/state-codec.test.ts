import { describe, expect, it } from 'vitest';
import { WORK_BOUNDED } from '../../../../support/work-bounded.ts';
import { newVesselState, newZonePresence, type VesselState } from '../../../../../processors/maritime/rules/vessel-state.ts';
import { decodeState, encodeState } from '../../../../../processors/maritime/store/state-codec.ts';
import { seeded } from '../../../../support/seeded-random.ts';

function randomState(random: () => number, mmsi: number): VesselState {
  const pick = <T>(values: T[]): T => values[Math.floor(random() * values.length)] as T;
  const maybe = <T>(value: T): T | null => (random() < 0.5 ? null : value);
  const t = () => 1_795_000_000_000 + Math.floor(random() * 1e9);
  return {
    ...newVesselState(mmsi),
    last_seen_at: t(),
    lat: random() * 180 - 90,
    lon: random() * 360 - 180,
    sog: maybe(random() * 20),
    cog: maybe(random() * 360),
    vessel_name: maybe('SOMMERFUGLEN'),
    vessel_type: maybe('passenger'),
    zones: Array.from({ length: Math.floor(random() * 6) }, (_, i) => ({
      zone_id: `zone_${i}`,
      presence: pick(['inside', 'in_buffer', 'outside'] as const),
      entered_at: maybe(t()),
      visit_started_at: maybe(t()),
      carried_ms: pick([0, Math.floor(random() * 3_600_000)]),
      exited_at: maybe(t()),
      departing_since: maybe(t()),
      departing_reports: pick([0, 1, 2]),
      departure_fix: maybe([55.7, 12.6, pick([null, 4.2]), pick([null, 181])] as [number, number, number | null, number | null]),
      alert_from_ms: maybe(pick([0, 900_000])),
      rungs_fired: pick([0, 1, 3]),
      on_dwell_fired: random() < 0.5,
      recorded: random() < 0.5,
    })),
  };
}

describe('stored vessel state', () => {
  it('decodes to exactly the state it encoded (1,000 random states)', WORK_BOUNDED, () => {
    const random = seeded(7);
    for (let i = 0; i < 1_000; i++) {
      const state = randomState(random, 200_000_000 + i);
      const stored = JSON.parse(JSON.stringify(encodeState(state)));
      expect(decodeState(stored)).toEqual(state);
    }
  });

  it('writes only what differs from a new presence', () => {
    const state: VesselState = { ...newVesselState(219007035), zones: [{ ...newZonePresence('zone_a'), presence: 'in_buffer' }, { ...newZonePresence('zone_b'), presence: 'inside', entered_at: 5, recorded: true }] };
    expect(encodeState(state).zones).toEqual([
      { zone_id: 'zone_a', presence: 'in_buffer' },
      { zone_id: 'zone_b', presence: 'inside', entered_at: 5, recorded: true },
    ]);
  });

  it('reads rows written before the on_dwell alert rule existed as not having fired it', () => {
    const stored = { ...newVesselState(219007035), zones: [{ zone_id: 'zone_a', presence: 'inside' as const, entered_at: 5, rungs_fired: 1, recorded: true }] };
    expect(decodeState(stored).zones[0]?.on_dwell_fired).toBe(false);
  });

  it('reads rows written in the full form', () => {
    const state = randomState(seeded(3), 219000001);
    expect(decodeState(JSON.parse(JSON.stringify(state)))).toEqual(state);
  });
});
