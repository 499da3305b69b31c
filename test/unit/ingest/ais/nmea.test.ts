import { describe, expect, it } from 'vitest';
import { NOT_AIS, parseEpoch, parseVdm, type VdmSentence } from '../../../../ingest/ais/nmea.ts';
import { checksum } from './nmea-builder.ts';

function line(body: string, after = ''): string {
  return `!${body}*${checksum(body)}${after}`;
}

function parsed(text: string): VdmSentence {
  const result = parseVdm(text, 0);
  if (result === NOT_AIS || result.failed) throw new Error(`expected a sentence, got ${JSON.stringify(result)}`);
  return result;
}

describe('parseVdm', () => {
  it('reads the fragment fields and the payload range', () => {
    const text = line('AIVDO,2,1,7,B,55R3Vn82=ILTQ3KK,0');
    expect(parsed(text)).toMatchObject({ header: 'AIVDO', total: 2, number: 1, sequence: '7', channel: 'B', fillBits: 0, trailingEpochMs: undefined });
    const s = parsed(text);
    expect(text.slice(s.payloadStart, s.payloadEnd)).toBe('55R3Vn82=ILTQ3KK');
  });

  it('accepts empty and numeric channels, and an empty fill-bits field as 0', () => {
    expect(parsed(line('AIVDM,1,1,,,13aDp<PP000IwSlN,0')).channel).toBe('');
    expect(parsed(line('BSVDM,1,1,0,1,13aDp<PP000IwSlN,2')).channel).toBe('1');
    expect(parsed(line('AIVDM,1,1,,A,13aDp<PP000IwSlN,')).fillBits).toBe(0);
  });

  it('accepts a lowercase hex checksum', () => {
    const body = 'AIVDM,1,1,,A,15N1u<PP1FJuvSRHOE6QIwwh0HQ6,0';
    expect(parsed(`!${body}*${checksum(body).toLowerCase()}`).total).toBe(1);
  });

  it('returns NOT_AIS for other ! sentences', () => {
    expect(parseVdm('!AIPWR,UNIT=0,POWER=1*05', 0)).toBe(NOT_AIS);
    expect(parseVdm('!AIVDMX,1,1*00', 0)).toBe(NOT_AIS);
    expect(parseVdm('!AI', 0)).toBe(NOT_AIS);
  });

  it.each([
    ['a wrong checksum', '!AIVDM,1,1,,A,13aDp<PP000IwSlN,0*00', 'bad_checksum'],
    ['a checksum that is not hex', '!AIVDM,1,1,,A,13aDp<PP000IwSlN,0*ZZ', 'malformed_sentence'],
    ['a missing checksum', '!AIVDM,1,1,,A,13aDp<PP000IwSlN,0', 'malformed_sentence'],
    ['too few fields', line('AIVDM,1,1,,13aDp<PP000IwSlN,0'), 'malformed_sentence'],
    ['too many fields', line('AIVDM,1,1,,A,13aDp,PP000IwSlN,0'), 'malformed_sentence'],
    ['fragment count 0', line('AIVDM,0,1,,A,13aDp<PP000IwSlN,0'), 'malformed_sentence'],
    ['fragment number above count', line('AIVDM,2,3,,A,13aDp<PP000IwSlN,0'), 'malformed_sentence'],
    ['a letter as sequence id', line('AIVDM,2,1,X,A,13aDp<PP000IwSlN,0'), 'malformed_sentence'],
    ['fill bits 6', line('AIVDM,1,1,,A,13aDp<PP000IwSlN,6'), 'malformed_sentence'],
    ['a corrupted talker', line('=IVDM,1,1,,A,13aDp<PP000IwSlN,0'), 'bad_talker'],
  ])('rejects %s', (_name, text, reason) => {
    expect(parseVdm(text, 0)).toMatchObject({ failed: true, reason });
  });

  it('finds the epoch among USCG receiver fields after the checksum', () => {
    const text = line('AIVDM,1,1,,A,403Ovl@000Htt<tSF0l4Q@100`Pq,0', ',d-109,S2105,t050056.00,T56.13718694,r003669946,1325394060,1325394001');
    expect(parsed(text).trailingEpochMs).toBe(1325394060_000);
    expect(parsed(line('AIVDM,1,1,,A,13aDp<PP000IwSlN,0', ',b003669794,1272412827')).trailingEpochMs).toBe(1272412827_000);
    expect(parsed(line('AIVDM,1,1,,A,13aDp<PP000IwSlN,0', ',1327992119173')).trailingEpochMs).toBe(1327992119173);
  });
});

describe('parseEpoch', () => {
  it('reads seconds (below 1e11) and milliseconds, with an optional fraction', () => {
    const read = (s: string) => parseEpoch(s, 0, s.length);
    expect(read('1420030798')).toBe(1420030798_000);
    expect(read('1420030798.5')).toBe(1420030798_500);
    expect(read('1420030798123')).toBe(1420030798123);
  });

  it('ignores short numbers, signs and text', () => {
    const read = (s: string) => parseEpoch(s, 0, s.length);
    expect(read('12345')).toBeUndefined();
    expect(read('-1420030798')).toBeUndefined();
    expect(read('1420030798x')).toBeUndefined();
    expect(read('99999999999999999999')).toBeUndefined();
  });
});
