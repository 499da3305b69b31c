// What the gate review writes about a transaction (pure; docs/console.md "Gate review"): its truck and box
// in the specification's fields, the seal, and each risk factor beside the findings that scored it.

export interface Anomaly {
  type: string;
  message: string;
  severity: string;
}
export interface Factor {
  factor: string;
  score: number;
  weight: number;
}
export interface TransactionView {
  id: string;
  gate: string;
  lane?: string;
  status: string;
  decision: string;
  created_at: string;
  risk_score: number;
  vehicle?: { plate?: string; carrier?: string };
  container?: { id?: string; iso_type?: string; seal?: { number?: string; status?: string } };
  inspection?: { seal_verified?: boolean; anomalies?: Anomaly[] };
  operator?: string | null;
}

/** Which factor each finding (inspection.anomalies[].type, processors/gate/risk.ts) is scored under. */
export function factorOfAnomaly(type: string): string | undefined {
  if (type.startsWith('seal_')) return 'seal';
  return ({
    plate_unread: 'plate_ocr_confidence', plate_low_confidence: 'plate_ocr_confidence',
    container_unread: 'container_ocr_confidence', container_low_confidence: 'container_ocr_confidence',
    container_check_digit_invalid: 'container_check_digit', container_id_malformed: 'container_check_digit',
    container_mismatch: 'container_appointment_mismatch', plate_mismatch: 'plate_appointment_mismatch',
    appointment_missing: 'appointment', appointment_mismatch: 'appointment',
    damage: 'damage', weight_deviation: 'weight_deviation',
  } as Record<string, string>)[type];
}

const FACTOR_NAMES: Record<string, string> = {
  plate_ocr_confidence: 'plate reading', container_ocr_confidence: 'container reading', container_check_digit: 'container check digit',
  container_appointment_mismatch: 'container vs booking', plate_appointment_mismatch: 'plate vs booking', seal: 'seal', damage: 'damage',
  weight_deviation: 'weight', appointment: 'appointment',
};
export const factorName = (factor: string) => FACTOR_NAMES[factor] ?? factor.replace(/_/g, ' ');

export interface FactorLine {
  factor: string;
  name: string;
  /** score × weight: what it adds to the risk score. */
  points: number;
  score: number;
  weight: number;
  messages: string[];
}

/** The factors that scored, heaviest first, each with its findings' messages; and the names of those that found nothing. */
export function riskLines(factors: readonly Factor[], anomalies: readonly Anomaly[]): { scored: FactorLine[]; clear: string[]; other: string[] } {
  const byFactor = new Map<string, string[]>();
  const other: string[] = [];
  for (const a of anomalies) {
    const f = factorOfAnomaly(a.type);
    if (f === undefined) other.push(a.message);
    else byFactor.set(f, [...(byFactor.get(f) ?? []), a.message]);
  }
  const scored = factors
    .filter((f) => f.score > 0)
    .map((f) => ({ factor: f.factor, name: factorName(f.factor), points: Math.round(f.score * f.weight * 10) / 10, score: f.score, weight: f.weight, messages: byFactor.get(f.factor) ?? [] }))
    .sort((a, b) => b.points - a.points);
  const known = new Set(factors.map((f) => f.factor));
  // A finding whose factor is not listed (a newer service) is still shown.
  for (const [f, messages] of byFactor) if (!known.has(f)) other.push(...messages);
  return { scored, clear: factors.filter((f) => f.score <= 0).map((f) => factorName(f.factor)), other };
}

/** "seal DK4418001 broken", "seal SL-1 intact, verified", "no seal read". */
export function sealText(t: Pick<TransactionView, 'container' | 'inspection'>): string {
  const seal = t.container?.seal;
  if (!seal || (seal.number === undefined && seal.status === undefined)) return 'no seal read';
  const verified = t.inspection?.seal_verified ? ', verified' : '';
  return `seal ${seal.number ?? '(no number)'} ${seal.status ?? 'status unknown'}${verified}`;
}

const SEVERITY_RANK: Record<string, number> = { low: 1, medium: 2, high: 3, critical: 4 };

/** The gravest finding's message, for the list row ("seal broken (DK4418001)"); "" when nothing was found. */
export function mainFinding(anomalies: readonly Anomaly[] = []): string {
  const worst = [...anomalies].sort((a, b) => (SEVERITY_RANK[b.severity] ?? 0) - (SEVERITY_RANK[a.severity] ?? 0))[0];
  if (!worst) return '';
  return anomalies.length > 1 ? `${worst.message} (+${anomalies.length - 1} more)` : worst.message;
}

/** Where the truck stands: "gate-north lane 2", or the gate alone. */
export function placeText(t: Pick<TransactionView, 'gate' | 'lane'>): string {
  return t.lane ? `${t.gate} ${/^lane/i.test(t.lane) ? t.lane.replace(/[-_]/, ' ') : `lane ${t.lane}`}` : t.gate;
}

/** The row's title: the box and the truck, as read. */
export function truckText(t: Pick<TransactionView, 'container' | 'vehicle'>): string {
  return `${t.container?.id ?? 'no container id read'} · ${t.vehicle?.plate ?? 'no plate read'}`;
}
