// Direct production: other producers write raw NMEA lines to ais.raw and unvalidated readings to
// gate.readings.raw; the ingest role's consumer groups decode / validate them like every other path.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../../../app/service.ts';
import { ingestFeature } from '../../../../app/features.ts';
import { KafkaProducer, type InRecord } from '../../../../platform/kafka/index.ts';
import { topicNames, topicSpecs } from '../../../../platform/topics.ts';
import { reading } from '../../../support/gate-readings.ts';
import { readTopic } from '../../../support/ingest.ts';
import { testConfig, testKafka, testLog, unique, withAdmin } from '../../../support/stack.ts';
import { valueOf } from '../../../support/codec.ts';

const POSITION = '!AIVDM,1,1,,B,13A><b0P010qaGPOo2Gcl?w208C?,0*04';
const STATIC = ['!AIVDM,2,1,9,B,55R3Vn82=ILTQ3KKS>1<D60Dq@E918U<F222221J1`?164vc03S1CCAD,0*2A', '!AIVDM,2,2,9,B,`88888888888880,2*76'];
const BAD_CHECKSUM = '!AIVDM,1,1,,B,13A><b0P010qaGPOo2Gcl?w208C?,0*05';

describe('the raw topics', () => {
  const prefix = `${unique('raw')}.`;
  const topics = topicNames(prefix);
  let service: RunningService;
  const producer = new KafkaProducer(testKafka('raw-producer'));
  const value = (r: InRecord) => valueOf(r) as Record<string, unknown>;

  beforeAll(async () => {
    service = await startService(testConfig({ PSS_TOPIC_PREFIX: prefix }), ['ingest'], testLog, [ingestFeature]);
  });
  afterAll(async () => {
    await service?.stop();
    await producer.close();
    await withAdmin((admin) => admin.deleteTopics(topicSpecs(prefix).map((t) => t.name)));
  });

  it('decodes ais.raw records per source: key or source header, fragments across records, several lines per record', async () => {
    await producer.send([
      { topic: topics.aisRaw, key: 'partner-a', value: POSITION },
      { topic: topics.aisRaw, key: 'partner-a', value: STATIC[0] as string },
      { topic: topics.aisRaw, key: 'partner-a', value: STATIC[1] as string },
      { topic: topics.aisRaw, key: 'partner-b', value: `${STATIC.join('\r\n')}\r\n${BAD_CHECKSUM}`, headers: { source: 'station-7' } },
    ]);
    const positions = await readTopic(topics.aisPositions, 1);
    const statics = await readTopic(topics.aisStatic, 2);
    const letters = await readTopic(topics.deadLetter, 1);
    expect(positions.map((r) => value(r).source)).toEqual(['partner-a']);
    expect(statics.map((r) => [r.key, value(r).source]).sort()).toEqual([['371255000', 'partner-a'], ['371255000', 'station-7']]);
    expect(letters.map((r) => [r.key, value(r).reason])).toEqual([['station-7', 'bad_checksum']]);
  });

  it('never commits past a held fragment: a message cut by a restart is read again and decoded whole', async () => {
    // Own topics and consumer group; a fragment timeout far beyond the test, so no timeout interferes.
    const cutPrefix = `${unique('rawcut')}.`;
    const cut = topicNames(cutPrefix);
    const config = testConfig({ PSS_TOPIC_PREFIX: cutPrefix, PSS_AIS_FRAGMENT_TIMEOUT_MS: '600000' });
    let instance = await startService(config, ['ingest'], testLog, [ingestFeature]);
    try {
      // Fragment 1 ends its batch and stays held: its offset must not be committed.
      await producer.send([{ topic: cut.aisRaw, key: 'partner-c', value: STATIC[0] as string }]);
      await new Promise((r) => setTimeout(r, 1_500));
      // A restart (same group): the new instance reads fragment 1 again, then fragment 2, and decodes the
      // message. Before commits stopped at held fragments, fragment 1 was committed and lost here.
      await instance.stop();
      instance = await startService(config, ['ingest'], testLog, [ingestFeature]);
      await producer.send([{ topic: cut.aisRaw, key: 'partner-c', value: STATIC[1] as string }]);
      const statics = await readTopic(cut.aisStatic, 1, { timeoutMs: 20_000 });
      expect(statics.map((r) => [r.key, value(r).source, value(r).raw])).toEqual([['371255000', 'partner-c', STATIC]]);
      expect(await readTopic(cut.deadLetter, 0, { quietMs: 1_000, timeoutMs: 5_000 })).toEqual([]);
    } finally {
      await instance.stop();
      await withAdmin((admin) => admin.deleteTopics(topicSpecs(cutPrefix).map((t) => t.name)));
    }
  });

  /** Own topics and consumer group for a test that must see exactly what it sends, and the group's commits. */
  async function isolated(overrides: Record<string, string>, body: (t: typeof topics, committed: (expected: bigint[], timeoutMs: number) => Promise<bigint[]>) => Promise<void>): Promise<void> {
    const ownPrefix = `${unique('rawiso')}.`;
    const own = topicNames(ownPrefix);
    const instance = await startService(testConfig({ PSS_TOPIC_PREFIX: ownPrefix, ...overrides }), ['ingest'], testLog, [ingestFeature]);
    // The ais.raw group's committed offsets (one per partition written), once they equal `expected` or the time is up.
    const committed = async (expected: bigint[], timeoutMs: number) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const offsets = [...(await withAdmin((admin) => admin.committedOffsets(`${ownPrefix}pss-ingest-ais-raw`, own.aisRaw))).values()];
        if (Date.now() > deadline || JSON.stringify(offsets.map(String)) === JSON.stringify(expected.map(String))) return offsets;
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    try {
      await body(own, committed);
    } finally {
      await instance.stop();
      await withAdmin((admin) => admin.deleteTopics(topicSpecs(ownPrefix).map((t) => t.name)));
    }
  }

  it('dead-letters an oversized ais.raw record (700 kB of 0x01) truncated, reads on past it and commits its offset (regression)', async () => {
    await isolated({}, async (own, committed) => {
      // Before: its dead letter carried the 700 kB whole (4.2 MB as JSON), Kafka refused it as too large,
      // and the ingest retried it forever: nothing after it was produced and its offset never committed.
      await producer.send([
        { topic: own.aisRaw, key: 'partner-x', value: Buffer.alloc(700_000, 1) },
        { topic: own.aisRaw, key: 'partner-x', value: POSITION },
      ]);
      const letters = await readTopic(own.deadLetter, 1, { timeoutMs: 20_000 });
      expect(letters.map(value)).toMatchObject([{ feed: 'ais', source: 'partner-x', reason: 'record_too_large', truncated: true, raw_bytes: 700_000 }]);
      expect((letters[0] as InRecord).value.length).toBeLessThan(32 * 1024);
      expect((await readTopic(own.aisPositions, 1, { timeoutMs: 20_000 })).map((r) => value(r).source)).toEqual(['partner-x']);
      expect(await committed([2n], 10_000)).toEqual([2n]);
    });
  });

  it('dead-letters a lone first fragment on time while its source stays quiet, and commits past it (regression)', async () => {
    await isolated({ PSS_AIS_FRAGMENT_TIMEOUT_MS: '1000' }, async (own, committed) => {
      // Before: the timeout was checked only when the same source sent its next record, so a quiet
      // source's fragment was never dead-lettered and its offset held the partition's commits back.
      const sentAt = Date.now();
      await producer.send([{ topic: own.aisRaw, key: 'partner-q', value: STATIC[0] as string }]);
      const letters = (await readTopic(own.deadLetter, 1, { timeoutMs: 15_000 })).map(value);
      expect(letters).toMatchObject([{ reason: 'orphan_fragment', source: 'partner-q', raw: [STATIC[0]], detail: expect.stringContaining('fragment timeout') }]);
      const lateMs = Date.parse(String(letters[0]?.at)) - sentAt;
      expect(lateMs).toBeGreaterThanOrEqual(1_000);
      expect(lateMs).toBeLessThan(4_000);
      expect(await committed([1n], 5_000)).toEqual([1n]);
    });
  });

  it('validates gate.readings.raw into gate.readings (keyed by gate) or the dead-letter topic', async () => {
    await producer.send([
      { topic: topics.gateReadingsRaw, key: 'gate-north', value: JSON.stringify(reading({ reading_id: 'raw-1' })), headers: { source: 'lane-controller-2' } },
      { topic: topics.gateReadingsRaw, key: 'gate-north', value: '{"reading_id": ' },
      // Regression (issue 33): an evidence URL of another scheme than http(s) went through to the transaction.
      { topic: topics.gateReadingsRaw, key: 'gate-north', value: JSON.stringify(reading({ reading_id: 'raw-js', inspection: { images: [{ type: 'front', url: 'data:text/html,<script>alert(1)</script>', captured_at: '2025-03-01T08:29:57Z' }] } })) },
    ]);
    const readings = await readTopic(topics.gateReadings, 1);
    expect(readings.map((r) => [r.key, value(r).reading_id, value(r).source])).toEqual([['gate-north', 'raw-1', 'lane-controller-2']]);
    const letters = (await readTopic(topics.deadLetter, 3)).map(value).filter((l) => l.feed === 'gate');
    expect(letters).toMatchObject([
      { reason: 'invalid_json', source: 'gate.readings.raw', raw: ['{"reading_id": '] },
      { reason: 'reading_invalid', source: 'gate.readings.raw', detail: expect.stringContaining('/inspection/images/0/url must match pattern') },
    ]);
  });
});
