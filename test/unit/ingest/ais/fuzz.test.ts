// A source that sends garbage must never crash ingest (issue 4, item 6). Deterministic fuzzing (seeded
// PRNG): random bytes, NMEA-shaped noise, truncated and mutated real sentences, and random payloads
// behind valid checksums. The decoder must not throw, must not need its last-resort `decoder_error`,
// and everything it returns must match the JSON Schemas.
import { describe, expect, it } from 'vitest';
import { WORK_BOUNDED } from '../../../support/work-bounded.ts';
import { createAisDecoder } from '../../../../ingest/ais/index.ts';
import type { AisDecodeResult } from '../../../../schemas/ais.ts';
import { decodeLog, fixtureLogs, readLog, schemaErrors } from './fixtures.ts';
import { checksum, sentence, tagBlock } from './nmea-builder.ts';

/** mulberry32: small, fast, deterministic. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ARMOR = '0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVW`abcdefghijklmnopqrstuvw';
const NMEA_NOISE = ['!AIVDM,', '!AIVDO,', '$PGHP,1,', '\\', 'c:', 's:', 'g:1-2-', '*', ',', '1', '2', '9', 'A', 'B', '\r', '\n', '\\r\\n', '#', ' ', '@', ARMOR];

function pick<T>(rand: () => number, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)] as T;
}

function randomBytes(rand: () => number, length: number): string {
  let s = '';
  for (let i = 0; i < length; i++) s += String.fromCharCode(Math.floor(rand() * 256));
  return s;
}

function nmeaNoise(rand: () => number, pieces: number): string {
  let s = '';
  for (let i = 0; i < pieces; i++) {
    const piece = pick(rand, NMEA_NOISE);
    s += piece === ARMOR ? ARMOR.charAt(Math.floor(rand() * ARMOR.length)) : piece;
  }
  return s;
}

/** Feeds inputs to one long-lived decoder whose clock moves, and collects problems. */
function fuzz(inputs: Iterable<string>, options: { strictTagBlocks?: boolean; maxPendingGroups?: number } = {}, tickMs = 250) {
  let now = Date.UTC(2024, 0, 1);
  const decoder = createAisDecoder({ source: 'fuzz', now: () => now, fragmentTimeoutMs: 2000, ...options });
  const problems: string[] = [];
  let results = 0;
  let maxPending = 0;
  const check = (out: AisDecodeResult[], input: string) => {
    results += out.length;
    for (const r of out) {
      if (r.kind === 'reject' && r.reason === 'decoder_error') problems.push(`decoder_error for ${JSON.stringify(input)}: ${r.detail}`);
      for (const e of schemaErrors(r)) problems.push(`${e} for ${JSON.stringify(input)}`);
    }
  };
  for (const input of inputs) {
    now += tickMs;
    check(decoder.push(input), input);
    maxPending = Math.max(maxPending, decoder.pendingGroups);
  }
  now += 10_000;
  check(decoder.expire(), '(expire)');
  return { problems: problems.slice(0, 10), results, maxPending, pending: decoder.pendingGroups };
}

const REAL_SENTENCES = fixtureLogs()
  .flatMap((name) => readLog(name).split(/\r\n|\r|\n/))
  .filter((line) => /VD[MO],/.test(line));

describe('fuzzing the decoder', () => {
  it('survives random bytes, as lines and as chunks', WORK_BOUNDED, () => {
    const rand = prng(1);
    const inputs = Array.from({ length: 5000 }, () => randomBytes(rand, Math.floor(rand() * 200)));
    expect(fuzz(inputs).problems).toEqual([]);
  });

  it('survives NMEA-shaped noise, strict and lenient about tag blocks', WORK_BOUNDED, () => {
    const rand = prng(2);
    const inputs = Array.from({ length: 20_000 }, () => nmeaNoise(rand, 1 + Math.floor(rand() * 40)));
    expect(fuzz(inputs, { strictTagBlocks: true }).problems).toEqual([]);
    expect(fuzz(inputs, { strictTagBlocks: false }).problems).toEqual([]);
  });

  it('survives every truncation of real sentences', WORK_BOUNDED, () => {
    const sample = REAL_SENTENCES.filter((_, i) => i % 25 === 0);
    const inputs = sample.flatMap((line) => Array.from({ length: line.length }, (_, n) => line.slice(0, n)));
    expect(inputs.length).toBeGreaterThan(10_000);
    expect(fuzz(inputs).problems).toEqual([]);
  });

  it('survives real sentences with a character changed, with the checksum fixed up half the time', WORK_BOUNDED, () => {
    const rand = prng(3);
    const inputs = Array.from({ length: 20_000 }, () => {
      const line = pick(rand, REAL_SENTENCES);
      const at = Math.floor(rand() * line.length);
      const mutated = line.slice(0, at) + String.fromCharCode(32 + Math.floor(rand() * 95)) + line.slice(at + 1);
      const star = mutated.lastIndexOf('*');
      if (rand() < 0.5 || star < 1) return mutated;
      const start = mutated.indexOf('!');
      return start < 0 || start >= star ? mutated : `${mutated.slice(0, star + 1)}${checksum(mutated.slice(start + 1, star))}`;
    });
    expect(fuzz(inputs).problems).toEqual([]);
  });

  it('decodes random payloads of every type and length behind valid checksums into schema-valid results', WORK_BOUNDED, () => {
    const rand = prng(4);
    const inputs = Array.from({ length: 30_000 }, () => {
      const length = Math.floor(rand() * 80);
      let payload = ARMOR.charAt(Math.floor(rand() * 28)); // message types 0-27 first
      for (let i = 1; i < length; i++) payload += ARMOR.charAt(Math.floor(rand() * 64));
      const line = sentence(payload, Math.floor(rand() * 6), { channel: pick(rand, ['A', 'B', '']) });
      return rand() < 0.2 ? `${tagBlock(`c:${1_600_000_000 + Math.floor(rand() * 1e8)}`)}${line}` : line;
    });
    const outcome = fuzz(inputs);
    expect(outcome.problems).toEqual([]);
    // Every single-sentence line is accounted for: a report, a skip or a reject (type 19 gives two).
    expect(outcome.results).toBeGreaterThanOrEqual(inputs.length);
  });

  it('survives random fragment headers without growing past its pending-group bound', WORK_BOUNDED, () => {
    const rand = prng(5);
    const inputs = Array.from({ length: 20_000 }, () => {
      const total = 1 + Math.floor(rand() * 9);
      const body = `AIVDM,${total},${1 + Math.floor(rand() * total)},${Math.floor(rand() * 10)},${pick(rand, ['A', 'B'])},${pick(rand, ['55R3Vn82=ILTQ3KK', '', 'w', '13aDp<PP000IwSlN?Wm@0?wN2<1T'])},${Math.floor(rand() * 6)}`;
      return `!${body}*${checksum(body)}`;
    });
    const outcome = fuzz(inputs, { maxPendingGroups: 50 }, 0); // a stopped clock: only the bound limits memory
    expect(outcome.problems).toEqual([]);
    expect(outcome.maxPending).toBe(50);
    expect(outcome.pending).toBe(0);
  });

  it('decodes every fixture log without a decoder_error', WORK_BOUNDED, () => {
    const errors = fixtureLogs().flatMap((name) => decodeLog(name)).filter((r) => r.kind === 'reject' && r.reason === 'decoder_error');
    expect(errors).toEqual([]);
  });
});
