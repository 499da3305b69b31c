// A consumer group's status from a window of its offsets, after Burrow's lag evaluation
// (github.com/linkedin/Burrow/wiki/Consumer-Lag-Evaluation-Rules): judged on how the committed offset and
// the lag move over the window, never on one lag figure. Pure: the sampler (lag-sampler.ts) feeds it.
//
// Per partition, over the last `windowSamples` samples (lag = end offset - committed offset):
//   1. fewer samples than the window, or no committed offset yet  -> ok (nothing to judge yet)
//   2. the lag was 0 in some sample                               -> ok (the group caught up meanwhile)
//   3. the committed offset went backwards                        -> degraded, rewound (Burrow REWIND)
//   4. the committed offset did not move and the lag grew          -> stalled (Burrow STALL): degraded, and
//      down once the offset has stood still with a growing lag for `downAfterMs` (Burrow STOP: a stopped
//      consumer; judged over every sample given, which the sampler keeps for that long)
//   5. the committed offset moved but the lag grew at every step  -> degraded, falling behind (Burrow WARN)
//   6. otherwise                                                   -> ok, whatever the lag
// Unlike Burrow, an offset that stands still while the lag stays the same is ok: nothing new arrived and
// the group holds records on purpose (a fragment waiting for its partner). The group is its worst partition.

export type LagStatus = 'ok' | 'degraded' | 'down';

/** One reading of one partition: the group's committed offset (null: none yet) and the partition's end offset. */
export interface LagSample {
  topic: string;
  partition: number;
  /** Epoch ms of the reading. */
  at: number;
  committed: number | null;
  end: number;
}

export interface LagEvaluation {
  status: LagStatus;
  /** Why, in a sentence naming the partitions that decided it. */
  reason: string;
}

export interface LagRules {
  /** Samples per partition the rules look at (Burrow's window); fewer means ok, not judged yet. */
  windowSamples: number;
  /** A stall lasting this long is down. */
  downAfterMs: number;
}

export const DEFAULT_LAG_RULES: LagRules = { windowSamples: 5, downAfterMs: 300_000 };

const RANK: Record<LagStatus, number> = { ok: 0, degraded: 1, down: 2 };

/** The group's status from its samples (any order, any partitions); no samples is ok with nothing to judge. */
export function evaluateGroupLag(samples: readonly LagSample[], rules: LagRules = DEFAULT_LAG_RULES): LagEvaluation {
  const byPartition = new Map<string, LagSample[]>();
  for (const s of samples) {
    const key = `${s.topic}/${s.partition}`;
    const list = byPartition.get(key) ?? [];
    list.push(s);
    byPartition.set(key, list);
  }
  if (byPartition.size === 0) return { status: 'ok', reason: 'no partitions sampled yet' };
  const judged = [...byPartition]
    .sort(([, [a]], [, [b]]) => (a as LagSample).topic.localeCompare((b as LagSample).topic) || (a as LagSample).partition - (b as LagSample).partition)
    .map(([key, list]) => ({ key, ...evaluatePartition(list.sort((a, b) => a.at - b.at), rules) }));
  const worst = judged.reduce((w, j) => Math.max(w, RANK[j.status]), 0);
  const status = (Object.keys(RANK) as LagStatus[]).find((s) => RANK[s] === worst) as LagStatus;
  if (status === 'ok') {
    const lag = judged.reduce((total, j) => total + j.lag, 0);
    return { status, reason: `${byPartition.size} partitions, total lag ${lag}` };
  }
  const named = judged.filter((j) => j.status === status);
  const shown = named.slice(0, 3).map((j) => `${j.key} ${j.why}`);
  return { status, reason: shown.join('; ') + (named.length > 3 ? `; and ${named.length - 3} more partitions` : '') };
}

function lagOf(s: LagSample): number {
  return Math.max(0, s.end - (s.committed ?? 0));
}

/** One partition's samples, oldest first. */
function evaluatePartition(history: LagSample[], rules: LagRules): { status: LagStatus; why: string; lag: number } {
  const latest = history[history.length - 1] as LagSample;
  const window = history.slice(-rules.windowSamples);
  if (window.length < rules.windowSamples || window.some((s) => s.committed === null)) return { status: 'ok', why: 'not judged yet', lag: lagOf(latest) };
  const lags = window.map(lagOf);
  const lag = lags[lags.length - 1] as number;
  if (lags.some((l) => l === 0)) return { status: 'ok', why: 'caught up in the window', lag };
  const offsets = window.map((s) => s.committed as number);
  if (offsets.some((o, i) => i > 0 && o < (offsets[i - 1] as number))) {
    return { status: 'degraded', why: `rewound: committed offset went back to ${offsets[offsets.length - 1]}, lag ${lag}`, lag };
  }
  const first = window[0] as LagSample;
  if (offsets.every((o) => o === offsets[0])) {
    if (lag <= (lags[0] as number)) return { status: 'ok', why: 'idle: nothing new to read past the held records', lag };
    // How long the offset has stood still: back through every sample given, while it had not moved.
    let since = first;
    for (let i = history.length - 1; i >= 0; i--) {
      const s = history[i] as LagSample;
      if (s.committed !== latest.committed || lagOf(s) === 0) break;
      since = s;
    }
    const stillMs = latest.at - since.at;
    const what = `stalled: committed offset ${latest.committed} unmoved for ${Math.round(stillMs / 1000)} s while the lag grew ${lagOf(since)} -> ${lag}`;
    return { status: stillMs >= rules.downAfterMs ? 'down' : 'degraded', why: what, lag };
  }
  if (lags.every((l, i) => i === 0 || l > (lags[i - 1] as number))) {
    return { status: 'degraded', why: `falling behind: the lag grew at every sample ${lags[0]} -> ${lag} though offsets are committed`, lag };
  }
  return { status: 'ok', why: 'consuming', lag };
}
