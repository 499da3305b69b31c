// The position stream's server messages (docs/console.md "Position stream"). The positions themselves are
// serialized once per report (position-tail.ts) and joined here. Pure.
import type { PositionFilters } from '../../schemas/position-stream.ts';

export function positionsMessage(positions: readonly string[], left: readonly number[], resume: string, snapshot = false): string {
  return `{"type":"positions",${snapshot ? '"snapshot":true,' : ''}"positions":[${positions.join(',')}],"left":[${left.join(',')}],"resume":${JSON.stringify(resume)}}`;
}

export function positionsSubscribedMessage(filters: PositionFilters, resume: string): string {
  return JSON.stringify({ type: 'subscribed', filters, resume });
}

/** Sent before a snapshot when a handle is older than what this instance read: the snapshot replaces what the client shows. */
export function positionsGapMessage(reason: string, vesselsUrl: string): string {
  return JSON.stringify({ type: 'gap', message: `${reason}; the snapshot that follows holds the newest position of every vessel this instance knows within the filters: replace what you show with it (GET ${vesselsUrl} has the vessels it has not heard from)`, vessels_url: vesselsUrl });
}
