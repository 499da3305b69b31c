import type { Episode } from './vessel-state.ts';

/**
 * Violation episodes with hysteresis, shared by the speed and heading rules. An episode opens at the
 * first violating report and is confirmed (its one alert) at the second consecutive one, so a single
 * noisy value alerts nothing. It ends only after `END_REPORTS` reports that are clear (beyond the rule's
 * margin, not merely back at the limit) spanning at least `END_SECONDS` of event time; a report between
 * the limit and the margin neither ends nor extends it. A report without the value ("not available")
 * changes nothing.
 */
export const CONFIRM_REPORTS = 2;
export const END_REPORTS = 2;
export const END_SECONDS = 60;

/** One report's verdict: violating, clear (past the hysteresis margin), in the band between, or not available. */
export type Verdict = 'violating' | 'clear' | 'band' | 'unknown';

export interface EpisodeStep {
  episode: Episode | undefined;
  /** The episode was confirmed by this report: emit its alert. */
  confirmed: boolean;
  /** The episode ended with this report (the episode as it was is in `ended`). */
  ended: Episode | undefined;
}

export function advanceEpisode(episode: Episode | undefined, verdict: Verdict, value: number, t: number, worse: (a: number, b: number) => number): EpisodeStep {
  if (verdict === 'unknown') return { episode, confirmed: false, ended: undefined };
  if (episode === undefined) {
    if (verdict !== 'violating') return { episode, confirmed: false, ended: undefined };
    const opened: Episode = { since: t, reports: 1, fired: false, clear_since: null, clear_reports: 0, peak: value };
    return confirm(opened);
  }
  // Fields are only written when they change: an unchanged episode leaves the vessel's checkpoint alone
  // (a long episode would otherwise rewrite the state at every report). `reports` stops at confirmation.
  if (verdict === 'violating') {
    if (episode.reports < CONFIRM_REPORTS) episode.reports++;
    const peak = worse(episode.peak, value);
    if (peak !== episode.peak) episode.peak = peak;
    resetClear(episode);
    return confirm(episode);
  }
  if (verdict === 'band') {
    resetClear(episode);
    return { episode, confirmed: false, ended: undefined };
  }
  episode.clear_since ??= t;
  episode.clear_reports++;
  if (episode.clear_reports >= END_REPORTS && t - episode.clear_since >= END_SECONDS * 1000) return { episode: undefined, confirmed: false, ended: episode };
  return { episode, confirmed: false, ended: undefined };
}

function resetClear(episode: Episode): void {
  if (episode.clear_since !== null) episode.clear_since = null;
  if (episode.clear_reports !== 0) episode.clear_reports = 0;
}

function confirm(episode: Episode): EpisodeStep {
  const confirmed = !episode.fired && episode.reports >= CONFIRM_REPORTS;
  if (confirmed) episode.fired = true;
  return { episode, confirmed, ended: undefined };
}
