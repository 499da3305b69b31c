import type { RuleKind, RuleOfKind, ZoneRuleSet } from '../../../schemas/maritime-rules.ts';
import type { RuleZone } from './config.ts';
import type { RuleIntent } from './rule-intent.ts';
import type { RuleSlices, VesselState } from './vessel-state.ts';

/** The report a rule judges; null where the report had no value ("not available" is never a number). */
export interface RuleReport {
  t: number;
  lat: number;
  lon: number;
  sog: number | null;
  cog: number | null;
  heading: number | null;
  /** false: the transmitter itself says the fix is low accuracy (> 10 m). */
  position_accuracy: boolean | null;
}

/** The vessel's previous fix (kept for every vessel, near a zone or not). */
export interface PreviousFix {
  t: number;
  lat: number;
  lon: number;
  sog: number | null;
}

/** Everything a behaviour rule reads: pure input, no clock, no I/O. `vessel` is already advanced by the zone step. */
export interface RuleContext {
  vessel: VesselState;
  report: RuleReport;
  previous: PreviousFix | undefined;
  zones: ReadonlyMap<string, RuleZone>;
  ruleSets: ReadonlyMap<string, ZoneRuleSet>;
  /** Zone ids whose area holds a point (the zone index's exact answer); for rules that test between reports. */
  insideAt?: (lat: number, lon: number) => readonly string[];
}

/** A rule: updates its own slice of `ctx.vessel.rules` and appends what it found. */
export type VesselRule = (ctx: RuleContext, out: RuleIntent[]) => void;

/**
 * The zones whose `kind` rule applies to the vessel now: those it is inside (as the zone step confirms
 * presence, with its exit hysteresis), and with `near` also those in whose buffer it is.
 */
export function watchedZones<K extends RuleKind>(ctx: Pick<RuleContext, 'vessel' | 'zones' | 'ruleSets'>, kind: K, near: boolean): Array<[RuleZone, RuleOfKind[K]]> {
  const out: Array<[RuleZone, RuleOfKind[K]]> = [];
  if (ctx.ruleSets.size === 0) return out;
  for (const p of ctx.vessel.zones) {
    if (p.presence === 'outside' || (!near && p.presence !== 'inside')) continue;
    const set: Partial<Record<RuleKind, unknown>> | undefined = ctx.ruleSets.get(p.zone_id);
    const rule = set?.[kind];
    const zone = ctx.zones.get(p.zone_id);
    if (rule !== undefined && zone !== undefined && zone.active) out.push([zone, rule as RuleOfKind[K]]);
  }
  return out;
}

export function slices(vessel: VesselState): RuleSlices {
  return (vessel.rules ??= {});
}

/** Removes an empty slice so a vessel with nothing to remember stays `{}` (and is not stored). */
export function dropIfEmpty(vessel: VesselState, key: keyof RuleSlices): void {
  const value: unknown = vessel.rules?.[key];
  if (value !== null && typeof value === 'object' && Object.keys(value).length === 0) delete vessel.rules?.[key];
}
