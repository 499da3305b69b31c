// The dirty input real feeds contain (SOURCES.md of the shared data lists where each was found).
// Cases from logs we may not copy (AMSA) are rebuilt here from permitted sentences the same way.
import { describe, expect, it } from 'vitest';
import { createAisDecoder } from '../../../../ingest/ais/index.ts';
import type { AisDecodeResult } from '../../../../schemas/ais.ts';
import { armor, checksum, sentence, staticVoyage, tagBlock } from './nmea-builder.ts';

const NOW = Date.UTC(2024, 0, 15, 12, 0, 0);

function decodeLines(lines: string[], strictTagBlocks = true): AisDecodeResult[] {
  const decoder = createAisDecoder({ source: 'dirty', now: () => NOW, strictTagBlocks });
  return lines.flatMap((line) => decoder.push(line));
}

function reasons(results: AisDecodeResult[]): string[] {
  return results.map((r) => (r.kind === 'reject' || r.kind === 'skip' ? `${r.kind}:${r.reason}` : r.kind));
}

/** Replaces the sentence's talker and recomputes the checksum, as the corrupting receiver did. */
function withTalker(line: string, talker: string): string {
  const body = talker + line.slice(3, line.indexOf('*'));
  return `!${body}*${checksum(body)}`;
}

const GPSD_TYPE_1 = '!AIVDM,1,1,,B,13aDp<PP000IwSlN?Wm@0?wN2<1T,0*29';
const GPSD_TYPE_3 = '!AIVDM,1,1,,B,339FEj5P00PIwujN?fQv4?wPRD5:,0*64';

describe('dirty input', () => {
  it('rejects a corrupted talker such as !=IVDM with reason bad_talker (AMSA log)', () => {
    const [result] = decodeLines([withTalker(GPSD_TYPE_1, '=I')]);
    expect(result).toMatchObject({ kind: 'reject', reason: 'bad_talker', detail: 'talker "=I" is not two capital letters' });
  });

  it('accepts any two-letter talker and the "--" placeholder Gatehouse uses', () => {
    const talkers = ['AI', 'AB', 'BS', 'SA', 'AS', 'BY', 'SS', '--'];
    expect(reasons(decodeLines(talkers.map((t) => withTalker(GPSD_TYPE_1, t))))).toEqual(talkers.map(() => 'position'));
  });

  it('rejects lowercase and digit talkers', () => {
    expect(reasons(decodeLines([withTalker(GPSD_TYPE_1, 'ai'), withTalker(GPSD_TYPE_1, '1I')]))).toEqual(['reject:bad_talker', 'reject:bad_talker']);
  });

  it('rejects two sentences spliced into one line by their checksum (AMSA log)', () => {
    const spliced = `${GPSD_TYPE_1.slice(0, 30)}${GPSD_TYPE_3.slice(4)}`;
    const [result] = decodeLines([spliced]);
    expect(result).toMatchObject({ kind: 'reject', reason: 'bad_checksum', raw: [spliced] });
  });

  it('rejects an empty payload (pyais sample)', () => {
    expect(decodeLines(['!AIVDM,1,1,,B,,0*25'])).toMatchObject([{ kind: 'reject', reason: 'empty_payload' }]);
  });

  it('rejects an orphan fragment once the fragment timeout has passed', () => {
    let now = NOW;
    const decoder = createAisDecoder({ source: 'dirty', now: () => now, fragmentTimeoutMs: 5000 });
    const first = '!AIVDM,2,1,8,A,55DTsr01rEv?<E5;801<D604pDlu<0000000001?21J7:5cde>C0H1kmC1E5,0*7B'; // pyais sample
    expect(decoder.push(first)).toEqual([]);
    now += 4999;
    expect(decoder.expire()).toEqual([]);
    now += 1;
    expect(decoder.expire()).toMatchObject([{ kind: 'reject', reason: 'orphan_fragment', raw: [first], detail: expect.stringMatching(/^fragment 1 of 2 received/) }]);
  });

  it('rejects a bad tag-block checksum when strict and decodes the line when lenient (AMSA *00 log)', () => {
    const line = `${tagBlock('c:1420030798', '00')}${GPSD_TYPE_1}`;
    expect(decodeLines([line], true)).toMatchObject([{ kind: 'reject', reason: 'bad_tag_block', detail: 'tag block checksum 00 given, 5B computed' }]);
    expect(decodeLines([line], false)).toMatchObject([{ kind: 'position', reported_at: '2014-12-31T12:59:58.000Z' }]);
  });

  it('rejects an invalid message type 28 (libais test.aivdm)', () => {
    const line = '!AIVDM,1,1,,B,Lpuo<p0<CpgaHa@euMlc,0*4D,d-120,S1631,t041143.00,T43.51622187,r11SCIH1,1272427905';
    expect(decodeLines([line])).toMatchObject([{ kind: 'reject', reason: 'invalid_type', detail: 'message type 28 is not defined (1-27)' }]);
  });

  it('recovers sentences joined by a literal "\\r\\n" (DMA ais250 log)', () => {
    const line = '!ABVDM,2,1,9,A,552Mpwl00001L@GO??A:uJ0<P4hhDpLE8000001J00000t00000000000000,0*10\\r\\n!ABVDM,2,2,9,A,00000000000,2*26';
    expect(reasons(decodeLines([line]))).toEqual(['static']);
  });

  it('decodes mixed CR, CRLF and LF line endings in one stream', () => {
    const chunk = [GPSD_TYPE_1, GPSD_TYPE_3, GPSD_TYPE_1, GPSD_TYPE_3].join('\r') + '\r\n' + GPSD_TYPE_1 + '\n' + GPSD_TYPE_3 + '\r\n';
    expect(reasons(decodeLines([chunk]))).toEqual(Array.from({ length: 6 }, () => 'position'));
  });

  it('rejects a sentence cut off before its checksum', () => {
    expect(decodeLines(['!ABVDM,1,1,8,A,3'])).toMatchObject([{ kind: 'reject', reason: 'malformed_sentence', detail: 'no checksum (sentence truncated?)' }]);
  });

  it('rejects a payload character outside the 6-bit armoring', () => {
    const body = 'AIVDM,1,1,,A,13aDp<PP000IwS|N?Wm@0?wN2<1T,0';
    expect(decodeLines([`!${body}*${checksum(body)}`])).toMatchObject([{ kind: 'reject', reason: 'bad_payload', detail: 'payload character "|" is not 6-bit armoring' }]);
  });

  it('rejects a payload too short for its message type', () => {
    const { payload, fill } = armor(staticVoyage().slice(0, 10));
    expect(decodeLines([sentence(payload, fill)])).toMatchObject([{ kind: 'reject', reason: 'bad_length', detail: expect.stringMatching(/^type 5 needs 420 bits, got \d+$/) }]);
  });

  it('rejects a type 24 whose part number is neither A nor B (gpsd ais-18-27 log)', () => {
    expect(decodeLines(['!AIVDM,1,1,,A,H3KLehdt00000000?6ekkjm000000,0*2C'])).toMatchObject([{ kind: 'reject', reason: 'bad_payload' }]);
  });

  it('rejects fill bits outside 0-5 (AISHub sample)', () => {
    const body = 'AIVDM,1,1,,2,601uEP19bi7P04810,6';
    expect(decodeLines([`!${body}*${checksum(body)}`])).toMatchObject([{ kind: 'reject', reason: 'malformed_sentence', detail: 'fill bits are not 0-5' }]);
  });

  it('keeps the station of a rejected line when its tag block named one', () => {
    expect(decodeLines([`${tagBlock('s:rORBCOMM008')}!AIVDM,1,1,,B,,0*25`])).toMatchObject([{ kind: 'reject', reason: 'empty_payload', station: 'rORBCOMM008' }]);
  });
});
