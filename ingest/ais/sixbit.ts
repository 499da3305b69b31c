// AIS payload armoring (ITU-R M.1371-5 Annex 8 / IEC 61162-1 "6-bit" encapsulation): each payload
// character carries six bits. The payload is kept as one 6-bit value per byte and bit fields are read
// arithmetically, never through strings of '0'/'1'.

/** Character code -> 6-bit value, -1 where the character is not valid armoring. */
const DEARMOR = new Int8Array(128).fill(-1);
for (let c = 48; c < 88; c++) DEARMOR[c] = c - 48; // '0'..'W' -> 0..39
for (let c = 96; c < 120; c++) DEARMOR[c] = c - 56; // '`'..'w' -> 40..63

/** 6-bit ASCII (table 47): 0-31 are '@'..'_', 32-63 are ' '..'?'. */
const SIXBIT_ASCII = new Uint8Array(64);
for (let v = 0; v < 64; v++) SIXBIT_ASCII[v] = v < 32 ? v + 64 : v;

/** Longest payload accepted, in characters (9 fragments of an over-long sentence fit comfortably). */
export const MAX_PAYLOAD_CHARS = 2048;

/** A reusable buffer holding one message's payload; fields are read by bit offset and width. */
export class Payload {
  private readonly values = new Uint8Array(MAX_PAYLOAD_CHARS);
  private chars = 0;
  bitLength = 0;

  reset(): void {
    this.chars = 0;
    this.bitLength = 0;
  }

  /**
   * Appends the armored characters text[start, end). Returns the index of the first invalid
   * character, -2 when the payload would exceed MAX_PAYLOAD_CHARS, or -1 on success.
   */
  append(text: string, start: number, end: number): number {
    if (this.chars + (end - start) > MAX_PAYLOAD_CHARS) return -2;
    const values = this.values;
    let n = this.chars;
    for (let i = start; i < end; i++) {
      const code = text.charCodeAt(i);
      const v = code < 128 ? (DEARMOR[code] as number) : -1;
      if (v < 0) return i;
      values[n++] = v;
    }
    this.chars = n;
    return -1;
  }

  /** Sets the usable length once all fragments are in: fill bits pad the last character. */
  finish(fillBits: number): void {
    this.bitLength = Math.max(0, this.chars * 6 - fillBits);
  }

  /** Unsigned field of `width` bits (at most 32) starting at bit `start`; MSB first. */
  uint(start: number, width: number): number {
    const values = this.values;
    let value = 0;
    let pos = start;
    const end = start + width;
    while (pos < end) {
      const index = (pos / 6) | 0;
      const available = 6 - (pos - index * 6);
      const take = available < end - pos ? available : end - pos;
      const bits = ((values[index] as number) >> (available - take)) & ((1 << take) - 1);
      value = value * (1 << take) + bits;
      pos += take;
    }
    return value;
  }

  /** Two's-complement signed field (width at most 31). */
  int(start: number, width: number): number {
    const value = this.uint(start, width);
    const half = 1 << (width - 1);
    return value >= half ? value - 2 * half : value;
  }

  bool(bit: number): boolean {
    return this.uint(bit, 1) === 1;
  }

  /**
   * Text of up to `chars` 6-bit characters, cut to the bits actually present. '@' means "no more
   * text" (ITU padding), so the text ends at the first '@'. Spaces are kept; see text().
   */
  untrimmedText(start: number, chars: number): string {
    const present = Math.min(chars, Math.floor((this.bitLength - start) / 6));
    let out = '';
    for (let i = 0; i < present; i++) {
      const v = this.uint(start + i * 6, 6);
      if (v === 0) break;
      out += String.fromCharCode(SIXBIT_ASCII[v] as number);
    }
    return out;
  }

  /** Text without its '@' padding and trailing spaces; undefined when nothing is left. */
  text(start: number, chars: number): string | undefined {
    return nonEmpty(this.untrimmedText(start, chars));
  }
}

export function nonEmpty(text: string): string | undefined {
  const trimmed = text.trimEnd();
  return trimmed === '' ? undefined : trimmed;
}
