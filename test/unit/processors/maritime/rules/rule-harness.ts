import type { ZoneRuleSet } from '../../../../../schemas/maritime-rules.ts';
import { gapOnReport, gapWatch } from '../../../../../processors/maritime/rules/ais-gap-rule.ts';
import type { RuleZone } from '../../../../../processors/maritime/rules/config.ts';
import type { PreviousFix, RuleReport } from '../../../../../processors/maritime/rules/rule-context.ts';
import type { RuleIntent } from '../../../../../processors/maritime/rules/rule-intent.ts';
import type { VesselState } from '../../../../../processors/maritime/rules/vessel-state.ts';
import { applyVesselRules } from '../../../../../processors/maritime/rules/vessel-rules.ts';
import { step } from '../../../../../processors/maritime/rules/vessel-zone-state.ts';
import { config, MMSI, T0 } from './zone-fixtures.ts';

/** One report for the harness: seconds after T0, where, and the values (null: not available). */
export interface Fix {
  s: number;
  lat?: number;
  lon?: number;
  sog?: number | null;
  cog?: number | null;
  heading?: number | null;
  accuracy?: boolean | null;
  in?: string[];
  near?: string[];
  category?: string | null;
}

/** Runs reports of one vessel through the zone step and the behaviour rules, as evaluate-batch.ts does. */
export function runVessel(fixes: Fix[], zones: Map<string, RuleZone>, ruleSets: Map<string, ZoneRuleSet>, start?: VesselState): { intents: RuleIntent[]; state: VesselState } {
  let state = start;
  const intents: RuleIntent[] = [];
  for (const f of fixes) {
    const report: RuleReport = { t: T0 + f.s * 1000, lat: f.lat ?? 55.7, lon: f.lon ?? 12.6, sog: f.sog === undefined ? 5 : f.sog, cog: f.cog === undefined ? 90 : f.cog, heading: f.heading === undefined ? 90 : f.heading, position_accuracy: f.accuracy ?? null };
    let previous: PreviousFix | undefined;
    if (state !== undefined) {
      previous = { t: state.last_seen_at, lat: state.lat, lon: state.lon, sog: state.sog };
      intents.push(...gapOnReport(state, report, state.last_seen_at, gapWatch(state, zones, ruleSets)));
    }
    const result = step(state, { mmsi: MMSI, reported_at: report.t, lat: report.lat, lon: report.lon, sog: report.sog, cog: report.cog, vessel: { name: 'NORDIC STAR', category: f.category === undefined ? 'cargo' : f.category }, inside: f.in ?? [], inBuffer: f.near ?? [] }, zones, config());
    state = result.state;
    intents.push(...applyVesselRules({ vessel: state, report, previous, zones, ruleSets }));
  }
  return { intents, state: state as VesselState };
}

export const types = (intents: RuleIntent[]) => intents.map((i) => i.type);
