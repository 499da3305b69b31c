// The automated gate decision (pure): thresholds on the risk score give the decision, and within manual
// review the findings decide whether the truck is held at the lane or only flagged.
//   held:    the barrier stays down until an officer decides (findings about what is in the box or whether
//            it is the booked box: a seal violation, a container other than the booked one, high or
//            critical damage);
//   flagged: the transaction waits in the review queue, the lane follows its normal procedure (doubts
//            about the data rather than the cargo: low OCR confidence, a failed check digit, weight
//            beyond tolerance, no or a mismatched appointment, minor damage).
import type { AutomatedDecision, TransactionStatus } from '../../schemas/gate-transaction.ts';
import type { RiskAssessment } from './risk.ts';

export interface DecisionThresholds {
  /** Risk score from which a transaction goes to manual review. */
  manualReviewAt: number;
  /** Risk score from which it is rejected. */
  rejectAt: number;
}

export const DEFAULT_THRESHOLDS: DecisionThresholds = { manualReviewAt: 30, rejectAt: 70 };

export interface GateDecision {
  decision: AutomatedDecision;
  status: Extract<TransactionStatus, 'approved' | 'flagged' | 'held' | 'rejected'>;
  /** The rule that made it, for the audit trail. */
  rule: string;
  /** Findings that made a manual review a hold. */
  holdReasons: string[];
}

export function thresholdProblems(t: DecisionThresholds): string[] {
  return t.rejectAt > t.manualReviewAt ? [] : [`PSS_GATE_REJECT_AT (${t.rejectAt}) must be above PSS_GATE_MANUAL_REVIEW_AT (${t.manualReviewAt})`];
}

export function holdReasonsOf(risk: RiskAssessment): string[] {
  const reasons: string[] = [];
  if (risk.sealViolation !== undefined) reasons.push(`seal_${risk.sealViolation}`);
  if (risk.containerMismatch) reasons.push('container_mismatch');
  if (risk.damageSeverity === 'high' || risk.damageSeverity === 'critical') reasons.push(`damage_${risk.damageSeverity}`);
  return reasons;
}

export function decide(risk: RiskAssessment, t: DecisionThresholds): GateDecision {
  const score = risk.riskScore;
  if (score >= t.rejectAt) return { decision: 'auto_rejected', status: 'rejected', rule: `risk_score ${score} >= reject threshold ${t.rejectAt}`, holdReasons: [] };
  if (score < t.manualReviewAt) return { decision: 'auto_approved', status: 'approved', rule: `risk_score ${score} < manual review threshold ${t.manualReviewAt}`, holdReasons: [] };
  const holdReasons = holdReasonsOf(risk);
  const base = `risk_score ${score} >= manual review threshold ${t.manualReviewAt} and < ${t.rejectAt}`;
  return holdReasons.length > 0
    ? { decision: 'manual_review', status: 'held', rule: `${base}; held for ${holdReasons.join(', ')}`, holdReasons }
    : { decision: 'manual_review', status: 'flagged', rule: `${base}; flagged (no finding that holds the truck)`, holdReasons };
}
