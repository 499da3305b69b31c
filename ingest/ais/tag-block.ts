// NMEA 4.0 (IEC 61162-1 ed. 4) tag blocks: `\c:1635731889,s:station*hh\` before the sentence.
// Fields used: c: receive time (UNIX seconds; some loggers write milliseconds), s: source station,
// g: sentence grouping `n-m-id` (links the fragments of one message). Unknown fields (d:, n:, r:, t:,
// and vendor ones such as T: or q:) are ignored. The checksum is the XOR of the text between the
// backslash and `*`; with strict checking a missing or wrong one rejects the line, leniently it is
// ignored (one real feed writes `*00` on every tag block).
import { fail, parseEpoch, readHexByte, xorChecksum, hex2, type ParseFailure } from './nmea.ts';

export interface TagGroup {
  readonly number: number;
  readonly total: number;
  readonly id: string;
}

export interface TagBlock {
  readonly failed: false;
  readonly station: string | undefined;
  readonly timeMs: number | undefined;
  readonly group: TagGroup | undefined;
  /** Index of the first character after the closing backslash. */
  readonly end: number;
}

function parseGroup(value: string): TagGroup | undefined {
  const match = /^(\d+)-(\d+)-(\w+)$/.exec(value);
  if (!match) return undefined;
  const number = Number(match[1]);
  const total = Number(match[2]);
  return number >= 1 && number <= total ? { number, total, id: match[3] as string } : undefined;
}

/** Parses the tag block opening `line` (line[0] is a backslash). */
export function parseTagBlock(line: string, strict: boolean): TagBlock | ParseFailure {
  const close = line.indexOf('\\', 1);
  if (close === -1) return fail('bad_tag_block', 'tag block has no closing backslash');
  const star = line.lastIndexOf('*', close);
  const hasChecksum = star > 0 && close - star === 3;
  if (strict) {
    if (!hasChecksum) return fail('bad_tag_block', 'tag block has no checksum');
    const given = readHexByte(line, star + 1);
    const computed = xorChecksum(line, 1, star);
    if (given !== computed) {
      return fail('bad_tag_block', `tag block checksum ${given < 0 ? 'unreadable' : hex2(given)} given, ${hex2(computed)} computed`);
    }
  }
  let station: string | undefined;
  let timeMs: number | undefined;
  let group: TagGroup | undefined;
  const fieldsEnd = hasChecksum ? star : close;
  let at = 1;
  while (at < fieldsEnd) {
    const comma = line.indexOf(',', at);
    const end = comma === -1 || comma > fieldsEnd ? fieldsEnd : comma;
    const key = line.charCodeAt(at);
    const wellFormed = end - at >= 2 && line.charCodeAt(at + 1) === 58; /* : */
    if (!wellFormed) {
      if (strict) return fail('bad_tag_block', `tag block field "${line.slice(at, end)}" is not key:value`);
    } else if (key === 99 /* c */) {
      timeMs = parseEpoch(line, at + 2, end);
      if (timeMs === undefined && strict) return fail('bad_tag_block', `tag block time "${line.slice(at + 2, end)}" is not an epoch`);
    } else if (key === 115 /* s */) {
      if (end > at + 2) station = line.slice(at + 2, end);
    } else if (key === 103 /* g */) {
      group = parseGroup(line.slice(at + 2, end));
      if (group === undefined && strict) return fail('bad_tag_block', `tag block group "${line.slice(at + 2, end)}" is not n-m-id`);
    }
    at = end + 1;
  }
  return { failed: false, station, timeMs, group, end: close + 1 };
}
