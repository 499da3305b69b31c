// Every real log in test/fixtures/ais decoded whole: the mix of results is pinned per file (so a
// change in behaviour shows up here), and every result matches its JSON Schema.
import { describe, expect, it } from 'vitest';
import { WORK_BOUNDED } from '../../../support/work-bounded.ts';
import type { AisDecodeResult } from '../../../../schemas/ais.ts';
import { decodeLog, fixtureLogs, readLog, schemaErrors } from './fixtures.ts';

function tally(results: AisDecodeResult[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of results) {
    const key = r.kind === 'reject' || r.kind === 'skip' ? `${r.kind}:${r.reason}` : r.kind;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

const decoded = new Map(fixtureLogs().map((name) => [name, decodeLog(name)] as const));

describe('the real fixture logs', () => {
  it('are all present', () => {
    expect(decoded.size).toBe(15);
  });

  it('decode to results that all match their JSON Schemas', WORK_BOUNDED, () => {
    const errors = [...decoded.values()].flat().flatMap(schemaErrors);
    expect(errors).toEqual([]);
  });

  it('decode to the expected mix of reports, skips and rejects per file', () => {
    expect(Object.fromEntries([...decoded].map(([name, results]) => [name, tally(results)]))).toEqual({
      'real-nmea-dma-ais250-southern-california.txt': { position: 198, non_vessel: 22, static: 22, 'skip:unsupported_type': 1 },
      'real-nmea-dma-copenhagen-oresund.txt': { position: 420, non_vessel: 71, static: 43, 'skip:unsupported_type': 67 },
      'real-nmea-dma-gatehouse-2010-06-11.txt': { position: 2988, non_vessel: 166, static: 498, 'skip:unsupported_type': 399 },
      'real-nmea-dma-gatehouse-2013-03-18.txt': { position: 45, non_vessel: 2, static: 3 },
      'real-nmea-gpsd-ais-18-27-2023.txt': { position: 138, static: 69, 'reject:bad_payload': 69 },
      'real-nmea-gpsd-ais-nmea-lemmer-2020.txt': { position: 144, static: 21, 'skip:unsupported_type': 6, 'skip:not_ais': 1313 },
      'real-nmea-gpsd-ais-raw-messages-2023.txt': { position: 91, non_vessel: 11, static: 7 },
      'real-nmea-gpsd-ais-type6-fid55-2018.txt': { position: 808, non_vessel: 163, static: 194, 'skip:unsupported_type': 162 },
      'real-nmea-gpsd-ais-unpack-sixbit-2015.txt': { position: 2, non_vessel: 3, static: 10 },
      'real-nmea-gpsd-ait250-enkhuizen-2009.txt': { position: 67, non_vessel: 2, static: 3, 'skip:unsupported_type': 2, 'skip:not_ais': 67 },
      'real-nmea-gpsd-sample-aivdm.txt': { position: 12, non_vessel: 6, static: 11, 'skip:unsupported_type': 74, 'reject:malformed_sentence': 1 },
      'real-nmea-libais-tagblock-orbcomm-2014.txt': { position: 3, static: 1 },
      'real-nmea-libais-test-aivdm-uscg-2010.txt': {
        position: 34, non_vessel: 12, static: 15, 'skip:unsupported_type': 178, 'reject:bad_length': 8, 'reject:invalid_type': 17,
      },
      'real-nmea-libais-typeexamples-uscg-2012.txt': { position: 5, non_vessel: 2, static: 2, 'skip:unsupported_type': 17 },
      'real-nmea-pyais-nmea-data-sample-greece.txt': {
        position: 762, non_vessel: 6, static: 2, 'skip:unsupported_type': 8, 'reject:empty_payload': 100, 'reject:orphan_fragment': 20,
      },
    });
  });

  it('reject the 17 "type 28" sentences of the libais USCG log as invalid types', () => {
    const rejects = (decoded.get('real-nmea-libais-test-aivdm-uscg-2010.txt') ?? []).filter((r) => r.kind === 'reject' && r.reason === 'invalid_type');
    expect(rejects.map((r) => (r.kind === 'reject' ? r.detail : ''))).toEqual(Array.from({ length: 17 }, () => 'message type 28 is not defined (1-27)'));
  });

  it('decode the 18 "!--VDM" sentences of the DMA Gatehouse log instead of rejecting them', () => {
    const fromDashTalker = (decoded.get('real-nmea-dma-gatehouse-2010-06-11.txt') ?? []).filter((r) => r.raw[0]?.startsWith('!--VDM'));
    expect(fromDashTalker).toHaveLength(18);
    expect(fromDashTalker.every((r) => r.kind === 'skip' && r.reason === 'unsupported_type' && r.msg_type === 8)).toBe(true);
  });

  it('take event times from $PGHP, tag blocks and trailing USCG fields where the logs carry them', () => {
    const reportsOf = (name: string) => (decoded.get(name) ?? []).filter((r) => r.kind === 'position' || r.kind === 'static' || r.kind === 'non_vessel');
    const times = (name: string) => reportsOf(name).map((r) => ('reported_at' in r ? r.reported_at : ''));
    const gatehouse = times('real-nmea-dma-gatehouse-2010-06-11.txt');
    expect(gatehouse.every((t) => t >= '2010-06-11T11:46:10' && t <= '2010-06-11T11:46:39')).toBe(true);
    expect(times('real-nmea-libais-tagblock-orbcomm-2014.txt').every((t) => t.startsWith('2014-12-10T0'))).toBe(true);
    expect(times('real-nmea-libais-typeexamples-uscg-2012.txt').every((t) => t.startsWith('2012-01-0'))).toBe(true);
  });

  it('recover all eight lines of the DMA ais250 log that join two sentences with a literal "\\r\\n"', () => {
    const log = readLog('real-nmea-dma-ais250-southern-california.txt');
    expect(log.split('\\r\\n')).toHaveLength(9);
    const joined = (decoded.get('real-nmea-dma-ais250-southern-california.txt') ?? []).filter((r) => r.raw.length === 2);
    expect(joined.map((r) => r.kind)).toEqual(Array.from({ length: 8 }, () => 'static'));
  });
});
