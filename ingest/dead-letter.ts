// The one shape of a dead-letter record (schemas/dead-letter.ts), for every feed and path.
import type { DeadLetter } from '../schemas/dead-letter.ts';
import type { AisReject } from '../schemas/ais.ts';

/** Drops absent optional fields so the value matches the schema exactly. */
export function deadLetter(letter: DeadLetter): DeadLetter {
  const out: DeadLetter = { feed: letter.feed, raw: letter.raw, source: letter.source, reason: letter.reason, detail: letter.detail, at: letter.at };
  if (letter.station !== undefined) out.station = letter.station;
  return out;
}

export function fromAisReject(reject: AisReject): DeadLetter {
  return deadLetter({ feed: 'ais', raw: reject.raw, source: reject.source, station: reject.station, reason: reject.reason, detail: reject.detail, at: reject.at });
}
