import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vesselsFeature } from '../../../../app/features.ts';
import { startService, type RunningService } from '../../../../app/service.ts';
import { KafkaProducer } from '../../../../platform/kafka/index.ts';
import { followVesselDirectory, VesselDirectory } from '../../../../processors/maritime/vessel-directory.ts';
import type { VesselStatic } from '../../../../schemas/ais.ts';
import { jsonCodec } from '../../../support/codec.ts';
import { testConfig, testKafka, testLog, unique, withAdmin } from '../../../support/stack.ts';

// Issue 13, item 2: the zone processors' vessel directory starts from the vessels table (what the static
// sink has committed) and follows ais.static from the sink's offsets; a partition without such an offset
// is read from its start.
const BASE = 264_000_000 + Math.floor(Math.random() * 900) * 1_000;
const ALPHA = BASE + 1;
const BRAVO = BASE + 2;
const DELTA = BASE + 4;

const report = (mmsi: number, name: string, ship_category: VesselStatic['ship_category']): VesselStatic => ({
  kind: 'static', msg_type: 5, mmsi, source: 'test', reported_at: new Date().toISOString(), received_at: new Date().toISOString(), raw: ['x'],
  name, ship_type: ship_category === 'tug' ? 52 : 70, ship_category,
});

describe('the vessel directory at start-up', () => {
  const prefix = `${unique('directory')}.`;
  const producer = new KafkaProducer(testKafka());
  let service: RunningService;
  const produce = (values: VesselStatic[]) =>
    producer.send(values.map((v) => ({ topic: service.context.topics.aisStatic, key: String(v.mmsi), value: jsonCodec.encode('aisStatic', v) })));

  beforeAll(async () => {
    service = await startService(testConfig({ PSS_TOPIC_PREFIX: prefix }), ['processors'], testLog, [vesselsFeature]);
    await produce([report(ALPHA, 'ALPHA', 'tug'), report(BRAVO, 'BRAVO', 'cargo')]);
    // The static sink has stored both and committed past them.
    const topic = service.context.topics.aisStatic;
    const total = (offsets: Map<number, bigint>) => [...offsets.values()].reduce((a, b) => a + b, 0n);
    const deadline = Date.now() + 30_000;
    while (!(await withAdmin(async (admin) => total(await admin.committedOffsets(`${prefix}vessel-static`, topic)) >= total(await admin.endOffsets(topic))))) {
      if (Date.now() > deadline) throw new Error('the static sink did not commit ais.static within 30 s');
      await new Promise((r) => setTimeout(r, 100));
    }
    // A value only the table has: a directory that replays the topic shows the topic's name instead.
    await service.context.pool.query("UPDATE vessels SET name = 'ALPHA FROM TABLE' WHERE mmsi = $1", [ALPHA]);
  });
  afterAll(async () => {
    await producer.close();
    await service?.stop();
  });

  it('loads the vessels table, then follows ais.static from where the static sink committed', async () => {
    const directory = new VesselDirectory();
    const role = await followVesselDirectory(service.context, directory);
    try {
      expect(directory.get(ALPHA)).toEqual({ name: 'ALPHA FROM TABLE', category: 'tug' });
      expect(directory.get(BRAVO)).toEqual({ name: 'BRAVO', category: 'cargo' });
      // Produced after the start: the directory follows the topic live.
      await produce([report(DELTA, 'DELTA', 'tanker'), report(BRAVO, 'BRAVO RENAMED', 'cargo')]);
      expect(await role.current(10_000)).toBe(true);
      expect(directory.get(DELTA)).toEqual({ name: 'DELTA', category: 'tanker' });
      expect(directory.get(BRAVO)).toEqual({ name: 'BRAVO RENAMED', category: 'cargo' });
    } finally {
      await role.stop();
    }
  });

  it('reads every partition from its start when no static sink has committed offsets', async () => {
    const directory = new VesselDirectory();
    // Same topic, but the sink's group of another prefix, which never ran: the table's value is loaded,
    // then the topic's record, applied after it, wins (as a full replay would have it).
    const ctx = { ...service.context, config: { ...service.context.config, topicPrefix: `${prefix}nosink.` } };
    const role = await followVesselDirectory(ctx, directory);
    try {
      expect(directory.get(ALPHA)).toEqual({ name: 'ALPHA', category: 'tug' });
      expect(directory.get(DELTA)).toEqual({ name: 'DELTA', category: 'tanker' });
    } finally {
      await role.stop();
    }
  });
});
