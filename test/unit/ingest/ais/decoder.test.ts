import { describe, expect, it } from 'vitest';
import { createAisDecoder } from '../../../../ingest/ais/index.ts';
import { MAX_REPORTED_AHEAD_MS, type AisDecodeResult } from '../../../../schemas/ais.ts';
import { classA, message, sentence, tagBlock } from './nmea-builder.ts';

const NOW = Date.UTC(2024, 0, 15, 12, 0, 0);
const NOW_ISO = new Date(NOW).toISOString();

function decoder(options: { strictTagBlocks?: boolean } = {}) {
  return createAisDecoder({ source: 'test-feed', now: () => NOW, ...options });
}

function only(results: AisDecodeResult[]): AisDecodeResult {
  expect(results).toHaveLength(1);
  return results[0] as AisDecodeResult;
}

// Real sentences from the fixture logs (see test/fixtures/ais/NOTICE).
const GPSD_TYPE_1 = '!AIVDM,1,1,,B,13aDp<PP000IwSlN?Wm@0?wN2<1T,0*29'; // gpsd ais-nmea.log, Lemmer
const USCG_TYPE_1 = '!AIVDM,1,1,,A,15N1u<PP1FJuvSRHOE6QIwwh0HQ6,0*30,d-080,S2118,t050056.00,T56.4837741,r003669946,1325394060,1325394001';
const DMA_PGHP = '$PGHP,1,2010,6,11,11,46,11,390,231,45,992190934,1,2B*5B';
const DMA_TYPE_4 = '!AIVDM,1,1,,B,402=481uaUcf;OQ55JS9ITi025Jp,0*2B';
const GPSD_TYPE_19 = '!AIVDM,1,1,,B,C5N3SRgPEnJGEBT>NhWAwwo862PaLELTBJ:V00000000S0D:R220,0*0B';

describe('createAisDecoder', () => {
  it('decodes a class A position report with its source, times and raw line', () => {
    expect(only(decoder().push(GPSD_TYPE_1))).toEqual({
      kind: 'position', msg_type: 1, mmsi: 244660274, repeat: 0, source: 'test-feed',
      reported_at: NOW_ISO, received_at: NOW_ISO, raw: [GPSD_TYPE_1],
      nav_status: 0, sog: 0, cog: 0, position_accuracy: false, lat: 52.855395, lon: 5.678283333333333, utc_second: 47, raim: true,
    });
  });

  it('emits both a position and a static report for a type 19', () => {
    const results = decoder().push(GPSD_TYPE_19);
    expect(results.map((r) => r.kind)).toEqual(['position', 'static']);
    expect(results[1]).toMatchObject({ msg_type: 19, mmsi: 367059850, name: 'CAPT.J.RIMES', ship_type: 70, ship_category: 'cargo' });
  });

  it('skips valid message types it does not decode, with type and MMSI for the counters', () => {
    // dma-gatehouse-2010-06-11.txt: a type 8 from a Gatehouse base station, talker "--".
    const line = '!--VDM,1,1,,A,802R5Ph0BkAgoPNCkQn0Q@sMKgwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwt,2*57';
    expect(only(decoder().push(line))).toEqual({ kind: 'skip', reason: 'unsupported_type', msg_type: 8, mmsi: 2655619, source: 'test-feed', raw: [line], at: NOW_ISO });
  });

  it('rejects a line longer than maxLineLength as line_too_long before parsing it (regression: a 2,000,000-character payload became a 2 MB dead letter)', () => {
    const huge = sentence('1'.repeat(2_000_000), 0);
    const [reject] = decoder().push(huge);
    expect(reject).toMatchObject({ kind: 'reject', reason: 'line_too_long', raw: [huge], detail: `line of ${huge.length} characters; at most 4096 are accepted (an NMEA sentence has at most 82)` });
    const strict = createAisDecoder({ source: 'test-feed', now: () => NOW, maxLineLength: 40 });
    expect(only(strict.push(GPSD_TYPE_1))).toMatchObject({ reason: 'line_too_long' });
    expect(only(decoder().push(GPSD_TYPE_1)).kind).toBe('position');
  });

  it('rejects options that are out of range, naming the option', () => {
    expect(() => createAisDecoder({ source: '', now: () => NOW })).toThrow(/source/);
    expect(() => createAisDecoder({ source: 'x', now: () => NOW, fragmentTimeoutMs: 0 })).toThrow(/fragmentTimeoutMs/);
    expect(() => createAisDecoder({ source: 'x', now: undefined as unknown as () => number })).toThrow(/now/);
  });
});

describe('event time (reported_at)', () => {
  const body = message(classA());

  it('comes from the tag block c: field, in seconds or milliseconds', () => {
    const seconds = only(decoder().push(`${tagBlock('s:station-7,c:1635731889')}${body}`));
    const millis = only(decoder().push(`${tagBlock('c:1635731889123')}${body}`));
    expect(seconds).toMatchObject({ reported_at: '2021-11-01T01:58:09.000Z', received_at: NOW_ISO, station: 'station-7' });
    expect(millis).toMatchObject({ reported_at: '2021-11-01T01:58:09.123Z' });
  });

  it('comes from the latest $PGHP sentence when there is no tag block', () => {
    const d = decoder();
    expect(d.push(DMA_PGHP)).toEqual([]);
    expect(only(d.push(DMA_TYPE_4))).toMatchObject({ kind: 'non_vessel', msg_type: 4, reported_at: '2010-06-11T11:46:11.390Z' });
    expect(only(d.push(body))).toMatchObject({ reported_at: '2010-06-11T11:46:11.390Z' });
  });

  it('prefers the tag block time over a $PGHP time', () => {
    const d = decoder();
    d.push(DMA_PGHP);
    expect(only(d.push(`${tagBlock('c:1635731889')}${body}`))).toMatchObject({ reported_at: '2021-11-01T01:58:09.000Z' });
  });

  it('falls back to the first epoch field after the checksum (USCG and exactEarth loggers)', () => {
    expect(only(decoder().push(USCG_TYPE_1))).toMatchObject({ reported_at: '2012-01-01T05:01:00.000Z', received_at: NOW_ISO });
    expect(only(decoder().push(`${body},1327992119173`))).toMatchObject({ reported_at: '2012-01-31T06:41:59.173Z' });
  });

  it('is the receive time when the input carries no time at all', () => {
    expect(only(decoder().push(body))).toMatchObject({ reported_at: NOW_ISO, received_at: NOW_ISO });
  });

  it('rejects a report dated more than 5 minutes after its receive time as future_timestamp', () => {
    const seconds = (ms: number) => String(Math.floor(ms / 1000));
    const ahead = `${tagBlock(`s:station-7,c:${seconds(NOW + MAX_REPORTED_AHEAD_MS + 1_000)}`)}${body}`;
    expect(only(decoder().push(ahead))).toMatchObject({
      kind: 'reject', reason: 'future_timestamp', raw: [ahead], source: 'test-feed', station: 'station-7', at: NOW_ISO,
      detail: expect.stringContaining('301 s after received_at'),
    });
    // Far future: a receiver clock set to 2099, or a trailing epoch field in the future.
    expect(only(decoder().push(`${tagBlock('c:4070908800')}${body}`))).toMatchObject({ kind: 'reject', reason: 'future_timestamp' });
    expect(only(decoder().push(`${body},${NOW + 3_600_000}`))).toMatchObject({ kind: 'reject', reason: 'future_timestamp' });
    // Within the allowed skew, and any time in the past (old recordings), the report is kept.
    expect(only(decoder().push(`${tagBlock(`c:${seconds(NOW + MAX_REPORTED_AHEAD_MS)}`)}${body}`))).toMatchObject({ kind: 'position' });
    expect(only(decoder().push(`${tagBlock('c:946684800')}${body}`))).toMatchObject({ kind: 'position', reported_at: '2000-01-01T00:00:00.000Z' });
  });

  it('rejects a future multi-sentence message once, and a type 19 (two reports) once', () => {
    const d = decoder();
    const future = tagBlock(`c:${Math.floor((NOW + 3_600_000) / 1000)}`);
    expect(only(d.push(`${future}${GPSD_TYPE_19}`))).toMatchObject({ kind: 'reject', reason: 'future_timestamp', raw: [`${future}${GPSD_TYPE_19}`] });
    const [first, second] = ['!AIVDM,2,1,9,B,55R3Vn82=ILTQ3KKS>1<D60Dq@E918U<F222221J1`?164vc03S1CCAD,0*2A', '!AIVDM,2,2,9,B,`88888888888880,2*76'];
    expect(d.push(`${first},${NOW + 3_600_000}`)).toEqual([]);
    expect(only(d.push(second as string))).toMatchObject({ kind: 'reject', reason: 'future_timestamp', raw: [`${first},${NOW + 3_600_000}`, second] });
  });

  it('still skips an unsupported type dated in the future (nothing would be published)', () => {
    const line = '!--VDM,1,1,,A,802R5Ph0BkAgoPNCkQn0Q@sMKgwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwt,2*57';
    expect(only(decoder().push(`${tagBlock('c:4070908800')}${line}`))).toMatchObject({ kind: 'skip', reason: 'unsupported_type' });
  });

  it('rejects a $PGHP sentence with a bad checksum and keeps the previous time', () => {
    const d = decoder();
    d.push(DMA_PGHP);
    expect(only(d.push(DMA_PGHP.replace('*5B', '*00')))).toMatchObject({ kind: 'reject', reason: 'bad_checksum' });
    expect(only(d.push(body))).toMatchObject({ reported_at: '2010-06-11T11:46:11.390Z' });
  });
});

describe('lines that are not AIS', () => {
  it('ignores blank lines and # comments', () => {
    const d = decoder();
    expect(d.push('')).toEqual([]);
    expect(d.push('   \t')).toEqual([]);
    expect(d.push('# Type 1: from Kurt Schwehr')).toEqual([]);
  });

  it('skips other $ sentences and non-VDM ! sentences as not_ais', () => {
    const d = decoder();
    const rmc = '$GPRMC,213950.00,A,5250.53669,N,00542.34920,E,0.020,,070420,,,A*7D';
    expect(only(d.push(rmc))).toEqual({ kind: 'skip', reason: 'not_ais', source: 'test-feed', raw: [rmc], at: NOW_ISO });
    expect(only(d.push('!AIPWR,UNIT=0,POWER=1*05'))).toMatchObject({ kind: 'skip', reason: 'not_ais' });
  });

  it('rejects text that is not an NMEA sentence at all', () => {
    expect(only(decoder().push('AIVDM,2,2,1,B,00000000000,2*26'))).toMatchObject({ kind: 'reject', reason: 'malformed_sentence' });
  });
});

describe('line endings', () => {
  it('splits a chunk on CR, LF and CRLF alike', () => {
    const results = decoder().push(`${GPSD_TYPE_1}\r${DMA_TYPE_4}\r\n${GPSD_TYPE_1}\n\n`);
    expect(results.map((r) => r.kind)).toEqual(['position', 'non_vessel', 'position']);
  });

  it('recovers two sentences joined by a literal "\\r\\n" text escape', () => {
    // dma-ais250-southern-california.txt, line 27: both fragments of a type 5 on one line.
    const line = '!AIVDM,2,1,2,B,552H<Dl00001HDL62210ThuB08t5B1HDL622220j1083340Ht3h00000,0*4B\\r\\n!AIVDM,2,2,2,B,000000000000000,2*25';
    const report = only(decoder().push(line));
    expect(report).toMatchObject({ kind: 'static', msg_type: 5 });
    expect(report.raw).toEqual(line.split('\\r\\n'));
  });

  it('ignores a logger\'s literal "\\x0d\\x0a" after the checksum, as gpsd does', () => {
    const line = `${GPSD_TYPE_1}\\x0d\\x0a`;
    expect(only(decoder().push(line))).toMatchObject({ kind: 'position', mmsi: 244660274 });
  });
});
