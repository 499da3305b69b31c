import { describe, expect, it } from 'vitest';
import { AisRecords, AisTally } from '../../../ingest/ais-records.ts';
import { createAisDecoder } from '../../../ingest/ais/index.ts';
import type { OutRecord } from '../../../platform/kafka/index.ts';
import { topicNames } from '../../../platform/topics.ts';
import type { AisReport } from '../../../schemas/ais.ts';
import { jsonCodec, valueOf } from '../../support/codec.ts';

const NOW = Date.UTC(2024, 0, 1);
const records = new AisRecords(topicNames('p.'), jsonCodec);
const decode = (...lines: string[]) => {
  const decoder = createAisDecoder({ source: 'unit', now: () => NOW });
  return lines.flatMap((l) => decoder.push(l));
};
const POSITION = '!AIVDM,1,1,,B,13A><b0P010qaGPOo2Gcl?w208C?,0*04';
const BASE_STATION = '!AIVDM,1,1,,B,402R3Wiuef:dO0tgkNOgc?A00HBd,0*76';
const STATIC = ['!AIVDM,2,1,9,B,55R3Vn82=ILTQ3KKS>1<D60Dq@E918U<F222221J1`?164vc03S1CCAD,0*2A', '!AIVDM,2,2,9,B,`88888888888880,2*76'];

describe('decoder results to Kafka records', () => {
  it('routes positions, static data and base stations to their topics, keyed by MMSI', () => {
    const out: OutRecord[] = [];
    const tally = new AisTally();
    records.appendRecords(decode(POSITION, BASE_STATION, ...STATIC), out, tally);
    expect(out.map((r) => [r.topic, r.key])).toEqual([
      ['p.ais.positions', String((valueOf(out[0]!) as AisReport).mmsi)],
      ['p.ais.stations', String((valueOf(out[1]!) as AisReport).mmsi)],
      ['p.ais.static', '371255000'],
    ]);
    expect(tally.reports).toBe(3);
  });

  it('writes the report as the decoder made it: source and receive (decode) time included', () => {
    const [result] = decode(POSITION);
    const out: OutRecord[] = [];
    records.appendRecords([result as AisReport], out, new AisTally());
    expect(valueOf(out[0]!)).toEqual(result);
    expect(result).toMatchObject({ source: 'unit', received_at: new Date(NOW).toISOString() });
  });

  it('dead-letters a reject keyed by source with raw, reason, detail and time', () => {
    const out: OutRecord[] = [];
    const tally = new AisTally();
    records.appendRecords(decode('!AIVDM,1,1,,B,13A><b0P010qaGPOo2Gcl?w208C?,0*05'), out, tally);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ topic: 'p.ingest.deadletter', key: 'unit' });
    expect(valueOf(out[0]!)).toMatchObject({ feed: 'ais', reason: 'bad_checksum', source: 'unit', raw: ['!AIVDM,1,1,,B,13A><b0P010qaGPOo2Gcl?w208C?,0*05'], at: new Date(NOW).toISOString() });
    expect(tally.rejects.get('bad_checksum')).toBe(1);
  });

  it('counts skips (non-AIS sentences, unsupported types) without producing anything', () => {
    const out: OutRecord[] = [];
    const tally = new AisTally();
    records.appendRecords(decode('$GPRMC,213950.00,A,5250.5378,N,00542.6548,E,0.021,,070420,,,A*78'), out, tally);
    expect(out).toEqual([]);
    expect(tally.skips.get('not_ais')).toBe(1);
  });

  it('dead-letters a report that fails its schema as report_invalid, saying why', () => {
    const [result] = decode(POSITION);
    const broken = { ...(result as AisReport), lat: 123, extra: true } as unknown as AisReport;
    const outcome = records.report(broken, new AisTally());
    expect(outcome.kind).toBe('reject');
    if (outcome.kind !== 'reject') return;
    expect(outcome.letter.reason).toBe('report_invalid');
    expect(outcome.letter.detail).toContain('/lat must be <= 90');
    expect(outcome.letter.detail).toContain('/extra is not an allowed field');
  });
});
