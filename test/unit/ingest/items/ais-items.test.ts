import { describe, expect, it } from 'vitest';
import { AisRecords } from '../../../../ingest/ais-records.ts';
import { MAX_REPORTED_AHEAD_MS } from '../../../../schemas/ais.ts';
import { reportItems, sentenceItems } from '../../../../ingest/items/ais-items.ts';
import { compileSchema } from '../../../../ingest/validation.ts';
import { deadLetterSchema } from '../../../../schemas/dead-letter.ts';
import { tagBlock } from '../ais/nmea-builder.ts';
import { topicNames } from '../../../../platform/topics.ts';
import { jsonCodec, valueOf } from '../../../support/codec.ts';

const NOW = Date.UTC(2024, 0, 1);
const ctx = { source: 'http:key_1', records: new AisRecords(topicNames(''), jsonCodec), strictTagBlocks: true, fragmentTimeoutMs: 10_000, maxItemBytes: 65_536, now: () => NOW };
const POSITION = '!AIVDM,1,1,,B,13A><b0P010qaGPOo2Gcl?w208C?,0*04';
const validLetter = compileSchema(deadLetterSchema);
const STATIC = ['!AIVDM,2,1,9,B,55R3Vn82=ILTQ3KKS>1<D60Dq@E918U<F222221J1`?164vc03S1CCAD,0*2A', '!AIVDM,2,2,9,B,`88888888888880,2*76'];

describe('HTTP AIS sentences', () => {
  it('accepts every line of a clean body; a two-sentence message marks both lines', () => {
    const { answer, records } = sentenceItems([POSITION, ...STATIC], ctx);
    expect(answer).toMatchObject({ received: 3, accepted_count: 3, rejected_count: 0, skipped_count: 0 });
    expect(answer.accepted.map((a) => [a.index, a.msg_type])).toEqual([[0, 1], [1, 5], [2, 5]]);
    expect(answer.accepted[1]?.mmsi).toBe(371255000);
    expect(records.map((r) => r.topic)).toEqual(['ais.positions', 'ais.static']);
  });

  it('rejects a bad line by index with its reason, and dead-letters it, while the rest is accepted', () => {
    const { answer, records } = sentenceItems([POSITION, '!AIVDM,1,1,,B,13A><b0P010qaGPOo2Gcl?w208C?,0*05', 'hello'], ctx);
    expect(answer.accepted.map((a) => a.index)).toEqual([0]);
    expect(answer.rejected).toEqual([
      { index: 1, reason: 'bad_checksum', detail: expect.any(String) },
      { index: 2, reason: 'malformed_sentence', detail: expect.any(String) },
    ]);
    expect(records.filter((r) => r.topic === 'ingest.deadletter')).toHaveLength(2);
  });

  it('rejects a fragment whose partner is not in the request as orphan_fragment', () => {
    const { answer } = sentenceItems([STATIC[0] as string], ctx);
    expect(answer.rejected).toEqual([{ index: 0, reason: 'orphan_fragment', detail: expect.stringContaining('fragment 1 of 2') }]);
  });

  it('skips blank lines, comments and non-AIS sentences without rejecting them', () => {
    const { answer } = sentenceItems(['', '# recorded at sea', '$GPRMC,213950.00,A,5250.5378,N,00542.6548,E,0.021,,070420,,,A*78', POSITION], ctx);
    expect(answer.skipped).toEqual([{ index: 0, reason: 'no_sentence' }, { index: 1, reason: 'no_sentence' }, { index: 2, reason: 'not_ais' }]);
    expect(answer.accepted_count).toBe(1);
  });

  it('rejects an item that is not a string as item_invalid', () => {
    const { answer, records } = sentenceItems([42, { line: POSITION }], ctx);
    expect(answer.rejected.map((r) => [r.index, r.reason])).toEqual([[0, 'item_invalid'], [1, 'item_invalid']]);
    expect(records).toHaveLength(2);
  });

  it('keeps two identical lines apart', () => {
    const { answer } = sentenceItems([POSITION, POSITION], ctx);
    expect(answer.accepted.map((a) => a.index)).toEqual([0, 1]);
  });
});

describe('HTTP AIS decoded reports', () => {
  const report = { msg_type: 1, mmsi: 219005931, lat: 55.6, lon: 12.6, sog: 3.2, reported_at: '2024-01-01T00:00:00Z' };

  it('accepts a report, setting source and receive time and inferring kind', () => {
    const { answer, records } = reportItems([report], ctx);
    expect(answer.accepted).toEqual([{ index: 0, mmsi: 219005931, msg_type: 1 }]);
    expect(valueOf(records[0]!)).toMatchObject({ kind: 'position', source: 'http:key_1', received_at: new Date(NOW).toISOString(), raw: [JSON.stringify(report)] });
    expect(records[0]).toMatchObject({ topic: 'ais.positions', key: '219005931' });
  });

  it('rejects reports that break the schema, with the reason per index', () => {
    const { answer } = reportItems([report, { ...report, lat: 91 }, { ...report, msg_type: 8 }, 'text'], ctx);
    expect(answer.accepted.map((a) => a.index)).toEqual([0]);
    expect(answer.rejected.map((r) => [r.index, r.reason])).toEqual([[1, 'report_invalid'], [2, 'report_invalid'], [3, 'item_invalid']]);
    expect(answer.rejected[0]?.detail).toContain('/lat must be <= 90');
  });

  it('rejects a report dated more than 5 minutes after its receive time as future_timestamp, and dead-letters it', () => {
    const at = (ms: number) => new Date(ms).toISOString();
    const items = [
      { ...report, reported_at: '2099-01-01T00:00:00Z' },
      { ...report, reported_at: at(NOW + MAX_REPORTED_AHEAD_MS + 1_000), station: 'rx-1' },
      { ...report, reported_at: at(NOW + MAX_REPORTED_AHEAD_MS) },
      { ...report, reported_at: '2009-06-01T00:00:00Z' },
    ];
    const { answer, records } = reportItems(items, ctx);
    expect(answer.accepted.map((a) => a.index)).toEqual([2, 3]);
    expect(answer.rejected).toEqual([
      { index: 0, reason: 'future_timestamp', detail: expect.stringContaining('reported_at 2099-01-01T00:00:00Z') },
      { index: 1, reason: 'future_timestamp', detail: expect.stringContaining('301 s after received_at') },
    ]);
    const letters = records.filter((r) => r.topic === 'ingest.deadletter').map((r) => valueOf(r));
    expect(letters).toEqual([
      { feed: 'ais', raw: [JSON.stringify(items[0])], source: 'http:key_1', reason: 'future_timestamp', detail: expect.any(String), at: new Date(NOW).toISOString() },
      { feed: 'ais', raw: [JSON.stringify(items[1])], source: 'http:key_1', station: 'rx-1', reason: 'future_timestamp', detail: expect.any(String), at: new Date(NOW).toISOString() },
    ]);
    expect(letters.every((l) => validLetter(l))).toBe(true);
  });

  it('rejects a line over the length bound as line_too_long, dead-lettered truncated, and accepts the rest', () => {
    const { answer, records } = sentenceItems([`!AIVDM,1,1,,A,${'1'.repeat(2_000_000)},0*00`, POSITION], ctx);
    expect(answer.rejected).toEqual([{ index: 0, reason: 'line_too_long', detail: expect.stringContaining('at most 4096') }]);
    expect(answer.accepted.map((a) => a.index)).toEqual([1]);
    expect(records[0]!.value.length).toBeLessThan(8 * 1024);
  });

  it('rejects a report over the item bound as record_too_large', () => {
    const { answer, records } = reportItems([{ msg_type: 1, mmsi: 244730001, lat: 52.8, lon: 5.7, station: 's'.repeat(70_000) }], ctx);
    expect(answer.rejected).toEqual([{ index: 0, reason: 'record_too_large', detail: expect.stringContaining('at most 65536') }]);
    expect(validLetter(valueOf(records[0]!))).toBe(true);
  });

  it('rejects future NMEA sentences as future_timestamp too (the decoder path)', () => {
    const line = `${tagBlock(`c:${Math.floor((NOW + 3_600_000) / 1000)}`)}${POSITION}`;
    const { answer } = sentenceItems([line, POSITION], ctx);
    expect(answer.rejected).toEqual([{ index: 0, reason: 'future_timestamp', detail: expect.any(String) }]);
    expect(answer.accepted.map((a) => a.index)).toEqual([1]);
  });
  it('derives ship_category and hazardous_category from ship_type with the NMEA table, so vessel_types authorization applies', () => {
    const base = { msg_type: 5, mmsi: 219000052, name: 'HARBOUR TUG', reported_at: '2024-01-01T00:00:00Z' };
    const { answer, records } = reportItems([{ ...base, ship_type: 52 }, { ...base, mmsi: 219000073, ship_type: 73 }, { ...base, mmsi: 219000024, msg_type: 24, part: 'A' }], ctx);
    expect(answer.accepted.map((a) => a.index)).toEqual([0, 1, 2]);
    const values = records.map((r) => valueOf(r) as Record<string, unknown>);
    expect(records.map((r) => r.topic)).toEqual(['ais.static', 'ais.static', 'ais.static']);
    expect(values[0]).toMatchObject({ ship_type: 52, ship_category: 'tug' });
    expect(values[0]).not.toHaveProperty('hazardous_category');
    expect(values[1]).toMatchObject({ ship_type: 73, ship_category: 'cargo', hazardous_category: 'C' });
    expect(values[2]).not.toHaveProperty('ship_category');
  });

  it('keeps a category that agrees with ship_type and rejects one that contradicts it', () => {
    const base = { msg_type: 5, mmsi: 219000052, reported_at: '2024-01-01T00:00:00Z', ship_type: 52 };
    const { answer } = reportItems([{ ...base, ship_category: 'tug' }, { ...base, ship_category: 'pilot' }, { ...base, ship_type: 0 }], ctx);
    expect(answer.accepted.map((a) => a.index)).toEqual([0]);
    expect(answer.rejected).toEqual([
      { index: 1, reason: 'report_invalid', detail: expect.stringContaining('ship_category "pilot" contradicts ship_type 52 (tug)') },
      { index: 2, reason: 'report_invalid', detail: expect.stringContaining('ship_type') },
    ]);
  });
});
