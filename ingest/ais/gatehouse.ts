// Gatehouse `$PGHP` proprietary sentences. Type 1 carries the receive time of the AIS message next to
// it: `$PGHP,1,<year>,<month>,<day>,<hour>,<minute>,<second>,<ms>,<country>,<region>,<station>,
// <online flag>,<checksum of the following message>*hh`. Other PGHP types carry no time.
import { fail, hex2, readHexByte, xorChecksum, type ParseFailure } from './nmea.ts';

export interface GatehouseTime {
  readonly failed: false;
  /** Receive time in ms, or undefined for PGHP sentences that carry none. */
  readonly timeMs: number | undefined;
}

const NO_TIME: GatehouseTime = { failed: false, timeMs: undefined };

/** True when line[start..] begins a `$PGHP` sentence. */
export function isGatehouse(line: string, start: number): boolean {
  return line.startsWith('$PGHP,', start);
}

/** Parses the comma-separated unsigned integers of line[start, end) into `out`; -1 marks an empty or non-numeric field. */
function intFields(line: string, start: number, end: number, out: number[]): void {
  let value = 0;
  let digits = 0;
  let bad = false;
  for (let i = start; i <= end; i++) {
    const c = i === end ? 44 : line.charCodeAt(i);
    if (c === 44 /* , */) {
      out.push(bad || digits === 0 || digits > 9 ? -1 : value);
      value = 0;
      digits = 0;
      bad = false;
    } else if (c >= 48 && c <= 57) {
      value = value * 10 + (c - 48);
      digits++;
    } else {
      bad = true;
    }
  }
}

function inRange(value: number | undefined, min: number, max: number): boolean {
  return value !== undefined && value >= min && value <= max;
}

export function parseGatehouse(line: string, start: number): GatehouseTime | ParseFailure {
  const star = line.indexOf('*', start);
  if (star === -1) return fail('malformed_sentence', 'PGHP sentence has no checksum');
  const given = readHexByte(line, star + 1);
  const computed = xorChecksum(line, start + 1, star);
  if (given !== computed) return fail('bad_checksum', `PGHP checksum ${given < 0 ? 'unreadable' : hex2(given)} given, ${hex2(computed)} computed`);
  const f: number[] = [];
  intFields(line, start + 6, star, f); // after "$PGHP,"
  if (f[0] !== 1) return NO_TIME;
  const [, year, month, day, hour, minute, second, ms] = f;
  if (!inRange(year, 1970, 9999) || !inRange(month, 1, 12) || !inRange(day, 1, 31) || !inRange(hour, 0, 23) || !inRange(minute, 0, 59) || !inRange(second, 0, 60)) {
    return fail('malformed_sentence', 'PGHP time fields are not a valid UTC time');
  }
  const millis = inRange(ms, 0, 999) ? (ms as number) : 0;
  return { failed: false, timeMs: Date.UTC(year as number, (month as number) - 1, day, hour, minute, second, millis) };
}
