import { describe, expect, it } from 'vitest';
import { AisRecords } from '../../../../ingest/ais-records.ts';
import { RawAisDecoders, rawSourceOf } from '../../../../ingest/sources/raw-ais.ts';
import type { InRecord, OutRecord } from '../../../../platform/kafka/index.ts';
import { topicNames } from '../../../../platform/topics.ts';
import { jsonCodec, valueOf } from '../../../support/codec.ts';

const STATIC = ['!AIVDM,2,1,9,B,55R3Vn82=ILTQ3KKS>1<D60Dq@E918U<F222221J1`?164vc03S1CCAD,0*2A', '!AIVDM,2,2,9,B,`88888888888880,2*76'];
const POSITION = '!AIVDM,1,1,,B,13A><b0P010qaGPOo2Gcl?w208C?,0*04';

let offset = 0n;
const record = (key: string, value: string | Buffer, partition = 0): InRecord => ({ topic: 'ais.raw', partition, offset: offset++, key, value: Buffer.isBuffer(value) ? value : Buffer.from(value, 'latin1'), headers: {}, timestamp: 0 });
const letters = (out: OutRecord[]) => out.filter((r) => r.topic === 'ingest.deadletter').map((r) => valueOf(r) as Record<string, unknown>);

function decoders(timeoutMs = 1_000) {
  const clock = { now: 1_000_000 };
  const raw = new RawAisDecoders({
    records: new AisRecords(topicNames(''), jsonCodec),
    codec: jsonCodec,
    settings: { strictTagBlocks: true, fragmentTimeoutMs: timeoutMs, maxLineLength: 4_096, maxPendingBytes: 128 * 1024 },
    maxRecordBytes: 65_536,
    now: () => clock.now,
  });
  return { clock, raw };
}

describe('ais.raw decoding', () => {
  it('holds the record of a lone fragment, and lets it go as orphan_fragment once its timeout passes, with no further record (regression)', () => {
    const { clock, raw } = decoders();
    const first = record('quiet', STATIC[0] as string);
    const out: OutRecord[] = [];
    raw.decode([first], out);
    expect(out).toEqual([]);
    expect(raw.held()).toEqual([{ topic: 'ais.raw', partition: 0, offset: first.offset }]);
    clock.now += 999;
    raw.expire(out);
    expect(out).toEqual([]);
    clock.now += 1;
    raw.expire(out);
    expect(letters(out)).toMatchObject([{ reason: 'orphan_fragment', source: 'quiet', raw: [STATIC[0]] }]);
    expect(raw.held()).toEqual([]);
  });

  it('lets a quiet source\'s fragment go while other sources keep the consumer busy', () => {
    const { clock, raw } = decoders();
    const out: OutRecord[] = [];
    raw.decode([record('quiet', STATIC[0] as string)], out);
    clock.now += 1_500;
    raw.decode([record('busy', POSITION)], out);
    expect(letters(out)).toMatchObject([{ reason: 'orphan_fragment', source: 'quiet' }]);
    expect(raw.held()).toEqual([]);
  });

  it('joins fragments across records and holds nothing afterwards', () => {
    const { raw } = decoders();
    const out: OutRecord[] = [];
    raw.decode([record('a', STATIC[0] as string)], out);
    raw.decode([record('a', STATIC[1] as string)], out);
    expect(out.map((r) => r.topic)).toEqual(['ais.static']);
    expect(raw.held()).toEqual([]);
  });

  it('dead-letters a record over the size bound without decoding it, truncated, and reads on (regression)', () => {
    const { raw } = decoders();
    const out: OutRecord[] = [];
    raw.decode([record('big', Buffer.alloc(700_000, 1)), record('big', POSITION)], out);
    expect(letters(out)).toMatchObject([{ reason: 'record_too_large', source: 'big', truncated: true, raw_bytes: 700_000, detail: expect.stringContaining('at most 65536') }]);
    expect(out[0]!.value.length).toBeLessThan(32 * 1024);
    expect(out.map((r) => r.topic)).toEqual(['ingest.deadletter', 'ais.positions']);
  });

  it('cuts an overlong source name, so no key makes every record large', () => {
    expect(rawSourceOf(record('k'.repeat(700_000), POSITION), 'ais.raw', true)).toHaveLength(256);
    expect(rawSourceOf(record('  ', POSITION), 'ais.raw', true)).toBe('ais.raw');
  });
});
