import { crossingRule } from './crossing-rule.ts';
import { headingRule } from './heading-rule.ts';
import { loiteringRule } from './loitering-rule.ts';
import type { RuleContext, VesselRule } from './rule-context.ts';
import type { RuleIntent } from './rule-intent.ts';
import { speedRule } from './speed-rule.ts';
import { trackRule } from './track-rule.ts';
import { vesselTypeRule } from './vessel-type-rule.ts';

/**
 * The behaviour rules, in the order they run on each report after the zone step (evaluate-batch.ts):
 * each reads the report, the previous fix and the vessel's zone presence, and owns one slice of
 * `vessel.rules`. The AIS gap rule runs before the zone step instead (it judges the silence that
 * ended at this report) and from housekeeping (silence still going on); time rules are counted across
 * instances in Postgres (store/occupancy-store.ts).
 */
export const VESSEL_RULES: readonly VesselRule[] = [trackRule, speedRule, headingRule, vesselTypeRule, loiteringRule, crossingRule];

export function applyVesselRules(ctx: RuleContext): RuleIntent[] {
  const out: RuleIntent[] = [];
  for (const rule of VESSEL_RULES) rule(ctx, out);
  return out;
}
