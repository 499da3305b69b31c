import { describe, expect, it } from 'vitest';
import { createAisDecoder } from '../../../../ingest/ais/index.ts';
import type { AisDecodeResult } from '../../../../schemas/ais.ts';
import { fragments, staticVoyage, tagBlock } from './nmea-builder.ts';

const START = Date.UTC(2024, 0, 15, 12, 0, 0);

function clockedDecoder(options: { fragmentTimeoutMs?: number; maxPendingGroups?: number; maxPendingBytes?: number } = {}) {
  const clock = { now: START };
  const decoder = createAisDecoder({ source: 'frag', now: () => clock.now, ...options });
  return { clock, decoder };
}

const kinds = (results: AisDecodeResult[]) => results.map((r) => (r.kind === 'reject' ? `reject:${r.reason}` : r.kind));

// gpsd ais-nmea.log (Lemmer): a type 5 in two sentences.
const PART_1 = '!AIVDM,2,1,9,B,55R3Vn82=ILTQ3KKS>1<D60Dq@E918U<F222221J1`?164vc03S1CCAD,0*2A';
const PART_2 = '!AIVDM,2,2,9,B,`88888888888880,2*76';

describe('multi-sentence reassembly', () => {
  it('joins two fragments into one static report carrying both raw lines', () => {
    const { decoder } = clockedDecoder();
    expect(decoder.push(PART_1)).toEqual([]);
    expect(decoder.pendingGroups).toBe(1);
    const [report] = decoder.push(PART_2);
    expect(report).toMatchObject({ kind: 'static', msg_type: 5, mmsi: 371255000, name: 'SEA ENTERPRISE', destination: 'LEMMER', raw: [PART_1, PART_2] });
    expect(decoder.pendingGroups).toBe(0);
  });

  it('flush() rejects every incomplete message at once, whatever its age, and forgets it', () => {
    const { decoder } = clockedDecoder({ fragmentTimeoutMs: 60_000 });
    const c = fragments(staticVoyage({ mmsi: 333333333 }), 3, { sequence: '2', channel: 'A' });
    expect(decoder.push(PART_1)).toEqual([]);
    expect(decoder.push(`${c[0]}\n${c[2]}`)).toEqual([]);
    expect(decoder.expire()).toEqual([]);
    const flushed = decoder.flush();
    expect(flushed).toEqual([
      expect.objectContaining({ kind: 'reject', reason: 'orphan_fragment', raw: [PART_1], detail: expect.stringMatching(/^fragment 1 of 2 received; the input ended/) }),
      expect.objectContaining({ kind: 'reject', reason: 'orphan_fragment', raw: [c[0], c[2]], detail: expect.stringContaining('fragment 1, 3 of 3') }),
    ]);
    expect(decoder.pendingGroups).toBe(0);
    expect(decoder.flush()).toEqual([]);
    // The partner arriving later starts a new message of its own.
    expect(decoder.push(PART_2)).toEqual([]);
    expect(decoder.pendingGroups).toBe(1);
  });

  it('accepts fragments out of order', () => {
    const { decoder } = clockedDecoder();
    expect(decoder.push(PART_2)).toEqual([]);
    expect(kinds(decoder.push(PART_1))).toEqual(['static']);
  });

  it('keeps interleaved messages apart by sequence id and channel', () => {
    const { decoder } = clockedDecoder();
    const a = fragments(staticVoyage({ mmsi: 111111111 }), 2, { sequence: '1', channel: 'A' });
    const b = fragments(staticVoyage({ mmsi: 222222222 }), 2, { sequence: '1', channel: 'B' });
    const c = fragments(staticVoyage({ mmsi: 333333333 }), 3, { sequence: '2', channel: 'A' });
    const results = [a[0], b[0], c[0], c[1], b[1], a[1], c[2]].flatMap((line) => decoder.push(line as string));
    expect(results.map((r) => (r.kind === 'static' ? r.mmsi : r.kind))).toEqual([222222222, 111111111, 333333333]);
  });

  it('joins fragments linked by a tag-block group even when other sentences come between (libais ORBCOMM log)', () => {
    const { decoder } = clockedDecoder();
    const lines = [
      '\\g:1-2-1604,s:rORBCOMM008,c:1418169601,T:2014-12-10 00.00.01*37\\!AIVDM,2,1,6,A,53@o0E000001Q0CG37U8u<Tp4q@D00000000000018330400000000000000,0*63',
      '\\s:rORBCOMM104,q:u,c:1418172113,T:2014-12-10 00.41.53*55\\!AIVDM,1,1,,B,13F?Vv700<DJuLEtvep`iToV0<00,0*78',
      '\\g:2-2-1604,s:rORBCOMM008,c:1418169601,T:2014-12-10 00.00.01*34\\!AIVDM,2,2,6,A,00000000008,2*2A',
    ];
    const results = lines.flatMap((l) => decoder.push(l));
    expect(kinds(results)).toEqual(['position', 'static']);
    expect(results[1]).toMatchObject({ mmsi: 219005012, station: 'rORBCOMM008', reported_at: '2014-12-10T00:00:01.000Z' });
  });

  it('uses a group id alone when the later fragment has no s: field (exactEarth tag blocks)', () => {
    const { decoder } = clockedDecoder();
    const [one, two] = fragments(staticVoyage(), 2, { sequence: '9', channel: 'B' });
    expect(decoder.push(`${tagBlock('g:1-2-3985,s:rEV02,c:1334337317')}${one}`)).toEqual([]);
    expect(decoder.push(`${tagBlock('g:2-2-3985')}${two}`)).toMatchObject([{ kind: 'static', station: 'rEV02', reported_at: '2012-04-13T17:15:17.000Z' }]);
  });

  it('rejects the waiting fragment when a new one with the same number arrives', () => {
    const { decoder } = clockedDecoder();
    decoder.push(PART_1);
    expect(decoder.push(PART_1)).toMatchObject([{ kind: 'reject', reason: 'orphan_fragment', raw: [PART_1], detail: expect.stringContaining('same number') }]);
    expect(kinds(decoder.push(PART_2))).toEqual(['static']);
  });

  it('rejects timed-out fragments on the next push, without waiting for expire()', () => {
    const { clock, decoder } = clockedDecoder({ fragmentTimeoutMs: 1000 });
    decoder.push(PART_1);
    clock.now += 1000;
    const results = decoder.push('!AIVDM,1,1,,B,13aDp<PP000IwSlN?Wm@0?wN2<1T,0*29');
    expect(kinds(results)).toEqual(['position', 'reject:orphan_fragment']);
    expect(decoder.pendingGroups).toBe(0);
  });

  it('rejects a lone second fragment once it times out', () => {
    const { clock, decoder } = clockedDecoder({ fragmentTimeoutMs: 1000 });
    decoder.push(PART_2);
    clock.now += 5000;
    expect(decoder.expire()).toMatchObject([{ kind: 'reject', reason: 'orphan_fragment', raw: [PART_2], detail: expect.stringMatching(/^fragment 2 of 2 received/) }]);
  });

  it('bounds memory: past maxPendingGroups the oldest incomplete message is rejected', () => {
    const { decoder } = clockedDecoder({ maxPendingGroups: 3 });
    const firsts = [1, 2, 3, 4].map((seq) => fragments(staticVoyage(), 2, { sequence: String(seq) })[0] as string);
    expect(firsts.slice(0, 3).flatMap((l) => decoder.push(l))).toEqual([]);
    expect(decoder.push(firsts[3] as string)).toMatchObject([{ kind: 'reject', reason: 'orphan_fragment', raw: [firsts[0]], detail: expect.stringContaining('too many') }]);
    expect(decoder.pendingGroups).toBe(3);
  });

  it('bounds memory in characters too: past maxPendingBytes the oldest incomplete messages are rejected, never the newest', () => {
    // First fragments of 56 characters: two fit in 120, a third does not.
    const { decoder } = clockedDecoder({ maxPendingBytes: 120 });
    const firsts = [1, 2, 3].map((seq) => fragments(staticVoyage(), 2, { sequence: String(seq) })[0] as string);
    expect(firsts.slice(0, 2).flatMap((l) => decoder.push(l))).toEqual([]);
    expect(decoder.push(firsts[2] as string)).toMatchObject([{ kind: 'reject', reason: 'orphan_fragment', raw: [firsts[0]], detail: expect.stringContaining('size bound') }]);
    expect(decoder.pendingGroups).toBe(2);
    // One message larger than the bound on its own is still held (until its timeout).
    const lone = clockedDecoder({ maxPendingBytes: 10 }).decoder;
    expect(lone.push(firsts[0] as string)).toEqual([]);
    expect(lone.pendingGroups).toBe(1);
  });

  it('says when the oldest incomplete message times out, so a timer can fire then', () => {
    const { clock, decoder } = clockedDecoder({ fragmentTimeoutMs: 1000 });
    expect(decoder.nextExpiryMs).toBeUndefined();
    decoder.push(PART_1);
    clock.now += 400;
    decoder.push(fragments(staticVoyage(), 2, { sequence: '4' })[0] as string);
    expect(decoder.nextExpiryMs).toBe(START + 1000);
    decoder.push(PART_2);
    expect(decoder.nextExpiryMs).toBe(START + 1400);
  });

  it('takes the event time from the first fragment', () => {
    const { decoder } = clockedDecoder();
    const [one, two] = fragments(staticVoyage(), 2);
    decoder.push(`${one},1327992119157`);
    expect(decoder.push(`${two},1327992999999`)).toMatchObject([{ reported_at: '2012-01-31T06:41:59.157Z' }]);
  });
});
