import type { ZoneRulesConfig } from './rules/config.ts';
import type { VesselState } from './rules/vessel-state.ts';

/** What was last written for a vessel: its zone presences (as JSON) and its report time then. */
export interface Checkpoint {
  zones: string;
  lastSeenAt: number;
}

/**
 * Whether a vessel's state must be written now. Zone presences (entries, departures, fired rungs) are
 * written whenever they change, so a restart continues the same timers. The position and report time
 * alone change on every report; writing them at most every third of the silence timeout keeps a
 * restarted processor from mistaking a vessel that reported all along for one that fell silent.
 */
export function needsCheckpoint(state: VesselState, zonesJson: string, last: Checkpoint | undefined, config: ZoneRulesConfig): boolean {
  if (last === undefined || last.zones !== zonesJson) return true;
  return state.last_seen_at - last.lastSeenAt >= (config.silence_timeout_seconds * 1000) / 3;
}
