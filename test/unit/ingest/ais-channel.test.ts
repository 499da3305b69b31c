import { afterEach, describe, expect, it, vi } from 'vitest';
import { AisChannel } from '../../../ingest/ais-channel.ts';
import { AisRecords } from '../../../ingest/ais-records.ts';
import { ProducerQueue } from '../../../ingest/producer-queue.ts';
import type { OutRecord } from '../../../platform/kafka/index.ts';
import { createLogger } from '../../../platform/log.ts';
import { topicNames } from '../../../platform/topics.ts';
import { jsonCodec, valueOf } from '../../support/codec.ts';

const POSITION = '!AIVDM,1,1,,B,13A><b0P010qaGPOo2Gcl?w208C?,0*04';
const STATIC = ['!AIVDM,2,1,9,B,55R3Vn82=ILTQ3KKS>1<D60Dq@E918U<F222221J1`?164vc03S1CCAD,0*2A', '!AIVDM,2,2,9,B,`88888888888880,2*76'];

function channel() {
  const sent: OutRecord[] = [];
  const queue = new ProducerQueue({ send: async (r) => void sent.push(...r), maxBatchRecords: 100, lingerMs: 0, maxInFlight: 1, maxQueuedRecords: 1_000, log: createLogger('silent') });
  const ch = new AisChannel({ source: 'unit', kind: 'tcp', queue, records: new AisRecords(topicNames(''), jsonCodec), strictTagBlocks: true, fragmentTimeoutMs: 1_000, now: () => 0 });
  return { ch, queue, sent };
}

describe('the AIS channel', () => {
  it('frames lines across chunks: CR, LF and CRLF, a CR at the end of one chunk and its LF in the next', async () => {
    const { ch, queue, sent } = channel();
    const text = `${POSITION}\r\n${STATIC[0]}\r${STATIC[1]}\n${POSITION}\r\n`;
    for (let i = 0; i < text.length; i += 7) ch.write(Buffer.from(text.slice(i, i + 7), 'latin1'));
    await new Promise((r) => setImmediate(r));
    await queue.flush();
    expect(sent.map((r) => r.topic)).toEqual(['ais.positions', 'ais.static', 'ais.positions']);
  });

  it('decodes the unterminated last line of a closed connection instead of dropping it (regression)', async () => {
    const { ch, queue, sent } = channel();
    ch.write(`${POSITION}\r\n${POSITION}`);
    await new Promise((r) => setImmediate(r));
    ch.endOfConnection();
    await queue.flush();
    expect(sent.filter((r) => r.topic === 'ais.positions')).toHaveLength(2);
  });

  it('dead-letters a truncated last line rather than joining it to the next connection', async () => {
    const { ch, queue, sent } = channel();
    ch.write(POSITION.slice(0, 20));
    await new Promise((r) => setImmediate(r));
    ch.endOfConnection();
    ch.write(`${POSITION}\n`);
    await new Promise((r) => setImmediate(r));
    await queue.flush();
    expect(sent.map((r) => r.topic)).toEqual(['ingest.deadletter', 'ais.positions']);
  });

  describe('on a quiet feed', () => {
    afterEach(() => vi.useRealTimers());

    it('dead-letters a lone fragment when its timeout passes, by a timer, not at the next line', async () => {
      vi.useFakeTimers({ now: 0 });
      const sent: OutRecord[] = [];
      const queue = new ProducerQueue({ send: async (r) => void sent.push(...r), maxBatchRecords: 100, lingerMs: 0, maxInFlight: 1, maxQueuedRecords: 1_000, log: createLogger('silent') });
      const ch = new AisChannel({ source: 'unit', kind: 'tcp', queue, records: new AisRecords(topicNames(''), jsonCodec), strictTagBlocks: true, fragmentTimeoutMs: 1_000, now: () => Date.now() });
      await vi.advanceTimersByTimeAsync(300);
      ch.write(`${STATIC[0]}\n`);
      await vi.advanceTimersByTimeAsync(999);
      expect(sent).toHaveLength(0);
      expect(ch.pendingFragments).toBe(1);
      // Due at 1,300 ms: before, a timer every half timeout looked at 1,500 ms.
      await vi.advanceTimersByTimeAsync(1);
      expect(sent.map((r) => (valueOf(r) as { reason?: string }).reason)).toEqual(['orphan_fragment']);
      expect(ch.pendingFragments).toBe(0);
      ch.destroy();
    });
  });

  it('hands on an endless line once, as line_too_long, and skips the rest of it', async () => {
    const { ch, queue, sent } = channel();
    ch.write('x'.repeat(100_000));
    ch.write('y'.repeat(100_000));
    ch.write(`\n${POSITION}\n`);
    await new Promise((r) => setImmediate(r));
    await queue.flush();
    expect(sent.map((r) => [r.topic, (valueOf(r) as { reason?: string }).reason])).toEqual([['ingest.deadletter', 'line_too_long'], ['ais.positions', undefined]]);
    expect(valueOf(sent[0]!)).toMatchObject({ truncated: true, raw: ['x'.repeat(4_096)] });
  });

  it('dead-letters incomplete messages at the end of input', async () => {
    const { ch, queue, sent } = channel();
    ch.end(`${STATIC[0]}\n`);
    await new Promise((r) => ch.once('finish', r));
    await queue.flush();
    expect(sent).toHaveLength(1);
    expect(valueOf(sent[0]!)).toMatchObject({ reason: 'orphan_fragment' });
  });
  it('stamps each line by a synthetic clock when one is given, for recordings without times (issue 8, defect 11)', async () => {
    const sent: OutRecord[] = [];
    const queue = new ProducerQueue({ send: async (r) => void sent.push(...r), maxBatchRecords: 100, lingerMs: 0, maxInFlight: 1, maxQueuedRecords: 1_000, log: createLogger('silent') });
    let line = 0;
    const ch = new AisChannel({ source: 'unit', kind: 'replay', queue, records: new AisRecords(topicNames(''), jsonCodec), strictTagBlocks: true, fragmentTimeoutMs: 1_000, now: () => 0, lineTime: () => 1_700_000_000_000 + 20 * line++ });
    // One write: every line is decoded at once, yet each gets its own time; a two-line message its last line's.
    ch.write(`${POSITION}\n${STATIC[0]}\n${STATIC[1]}\n${POSITION}\n`);
    await new Promise((r) => setImmediate(r));
    await queue.flush();
    const times = sent.map((r) => valueOf(r) as { reported_at: string; received_at: string });
    expect(times.map((t) => t.received_at)).toEqual([0, 40, 60].map((ms) => new Date(1_700_000_000_000 + ms).toISOString()));
    expect(times.every((t) => t.reported_at === t.received_at)).toBe(true);
  });
});
