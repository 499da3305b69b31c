import type { ZoneRulesConfig } from './rules/config.ts';
import type { VesselState } from './rules/vessel-state.ts';

/** What was last written for a vessel: its zone presences (as JSON), its static data, and its report time then. */
export interface Checkpoint {
  zones: string;
  vessel: string;
  lastSeenAt: number;
}

export function checkpointOf(state: VesselState, zonesJson: string): Checkpoint {
  return { zones: zonesJson, vessel: vesselFacts(state), lastSeenAt: state.last_seen_at };
}

/**
 * Whether a vessel's state must be written now. Zone presences (entries, departures, fired rungs) are
 * written whenever they change, so a restart continues the same timers, and so is static data learned
 * for the vessel, so the dwell endpoint names and authorizes it at once. The position and report time
 * alone change on every report; writing them at most every third of the silence timeout keeps a
 * restarted processor from mistaking a vessel that reported all along for one that fell silent.
 */
export function needsCheckpoint(state: VesselState, zonesJson: string, last: Checkpoint | undefined, config: ZoneRulesConfig): boolean {
  if (last === undefined || last.zones !== zonesJson || last.vessel !== vesselFacts(state)) return true;
  return state.last_seen_at - last.lastSeenAt >= (config.silence_timeout_seconds * 1000) / 3;
}

function vesselFacts(state: VesselState): string {
  return `${state.vessel_name ?? ''}\u0000${state.vessel_type ?? ''}`;
}
