import type { SecurityEvent } from '../../../schemas/event.ts';
import { iso, round, vesselIntent, vesselLabel, type RuleIntent } from './rule-intent.ts';
import type { VesselState } from './vessel-state.ts';

/**
 * Vessel risk score (issue 12 item 7): 0-100 from the vessel's recent findings, each adding its weight,
 * decaying exponentially in event time with a half-life of 6 hours, capped at 100. Factors (weights):
 * a denied or unknown type in a zone 30, an identity conflict 30, a position jump 20, an AIS gap 15,
 * unauthorized presence (an alerting zone_entry into an exclusion or restricted zone) 15, a speed episode 10, a heading/COG mismatch 5.
 * Records (exits, episode ends, gap ends, unalerted entries) add nothing.
 */
export const RISK_WEIGHTS: Readonly<Record<string, number>> = {
  vessel_type_violation: 30,
  identity_conflict: 30,
  position_jump: 20,
  ais_gap: 15,
  zone_entry: 15,
  speed_anomaly: 10,
  heading_mismatch: 5,
};
export const RISK_HALF_LIFE_MS = 6 * 3_600_000;
/** A change of at least this many points since the last risk_score_change (or from 0) is announced. */
export const RISK_CHANGE_THRESHOLD = 20;
/** Below this the slice is dropped (the vessel is back to no risk). */
const FORGOTTEN_BELOW = 1;

export interface RiskSlice {
  score: number;
  at: number;
  announced: number;
}

export function decayed(slice: RiskSlice | undefined, t: number): number {
  if (slice === undefined) return 0;
  return slice.score * 0.5 ** (Math.max(0, t - slice.at) / RISK_HALF_LIFE_MS);
}

/** Severity from the new score: below 25 low, below 50 medium, below 75 high, else critical. */
export function riskSeverity(score: number): SecurityEvent['severity'] {
  return score < 25 ? 'low' : score < 50 ? 'medium' : score < 75 ? 'high' : 'critical';
}

function weightOf(event: Pick<SecurityEvent, 'type' | 'metadata'>): number {
  if (event.type === 'zone_entry') {
    const unauthorized = event.metadata.alerting === true && (event.metadata.zone_type === 'exclusion' || event.metadata.zone_type === 'restricted');
    if (!unauthorized) return 0;
  }
  return RISK_WEIGHTS[event.type] ?? 0;
}

/**
 * Adds the findings of one report (events about this vessel) at event time `t`; returns a
 * risk_score_change when the score moved by RISK_CHANGE_THRESHOLD since the last one announced. Decay
 * alone is announced at the vessel's next finding, not while it is quiet.
 */
export function updateRisk(vessel: VesselState, findings: readonly Pick<SecurityEvent, 'type' | 'metadata'>[], t: number): RuleIntent | undefined {
  const added = findings.reduce((sum, e) => sum + weightOf(e), 0);
  const slice = vessel.rules?.risk;
  if (added === 0) {
    if (slice !== undefined && decayed(slice, t) < FORGOTTEN_BELOW) delete vessel.rules?.risk;
    return undefined;
  }
  const before = decayed(slice, t);
  const score = Math.min(100, before + added);
  const announced = slice === undefined ? 0 : decayed({ score: slice.announced, at: slice.at, announced: 0 }, t);
  const next: RiskSlice = { score, at: t, announced: slice?.announced ?? 0 };
  (vessel.rules ??= {}).risk = next;
  if (Math.abs(score - announced) < RISK_CHANGE_THRESHOLD) {
    next.announced = announced;
    return undefined;
  }
  next.announced = score;
  const factors = findings.filter((e) => weightOf(e) > 0).map((e) => e.type);
  return vesselIntent(
    'risk_score_change', riskSeverity(score), vessel, undefined, t, 'info',
    {
      title: `${vesselLabel(vessel)} risk score ${Math.round(score)} (was ${Math.round(announced)})`,
      description: `Raised by ${factors.join(', ')} at ${iso(t)}; findings decay with a half-life of 6 h.`,
    },
    { risk_score: Math.round(score), previous_risk_score: Math.round(announced), factors, score_exact: round(score, 2) },
  );
}
