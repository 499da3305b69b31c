import { describe, expect, it } from 'vitest';
import { checkpointOf, needsCheckpoint } from '../../../../processors/maritime/checkpoint-policy.ts';
import { DEFAULT_ZONE_RULES_CONFIG } from '../../../../processors/maritime/rules/config.ts';
import { newVesselState } from '../../../../processors/maritime/rules/vessel-state.ts';

describe('needsCheckpoint', () => {
  const config = DEFAULT_ZONE_RULES_CONFIG;
  const third = (config.silence_timeout_seconds * 1000) / 3;
  const state = (lastSeenAt: number) => ({ ...newVesselState(219000001), last_seen_at: lastSeenAt });

  it('writes a vessel never written before', () => {
    expect(needsCheckpoint(state(1_000), '[]', undefined, config)).toBe(true);
  });

  it('writes whenever the zone presences changed', () => {
    expect(needsCheckpoint(state(1_000), '[{"zone_id":"a"}]', checkpointOf(state(999), '[]'), config)).toBe(true);
  });

  it('skips a report that only moved the vessel, until a third of the silence timeout has passed', () => {
    const last = checkpointOf(state(0), '[{"zone_id":"a"}]');
    expect(needsCheckpoint(state(third - 1), last.zones, last, config)).toBe(false);
    expect(needsCheckpoint(state(third), last.zones, last, config)).toBe(true);
  });

  it('writes static data learned for the vessel at once, so the dwell endpoint names and authorizes it', () => {
    const last = checkpointOf(state(0), '[]');
    expect(needsCheckpoint({ ...state(1), vessel_name: 'LATE TUG' }, '[]', last, config)).toBe(true);
    expect(needsCheckpoint({ ...state(1), vessel_type: 'tug' }, '[]', last, config)).toBe(true);
    expect(needsCheckpoint(state(1), '[]', last, config)).toBe(false);
  });
});
