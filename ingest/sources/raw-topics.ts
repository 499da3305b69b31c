// Direct production by other producers: they write raw NMEA lines to `ais.raw` (key: their source name;
// a `source` header overrides it) and unvalidated gate readings to `gate.readings.raw` (key: the gate;
// the `source` header names the producer). A consumer group per raw topic decodes / validates them into the same topics
// as every other path. Offsets are committed only after the produced records are acknowledged, so a crash
// re-reads and re-produces (at least once; consumers of the output topics are idempotent).
import type { RunningRole, ServiceContext } from '../../platform/context.ts';
import { KafkaConsumer, type OutRecord } from '../../platform/kafka/index.ts';
import { aisSettings } from '../ais-settings.ts';
import { processGateItem } from '../gate/readings.ts';
import { ingestMetrics } from '../metrics.ts';
import type { IngestRuntime } from '../runtime.ts';
import { RawAisDecoders, rawSourceOf } from './raw-ais.ts';

/**
 * How often the ais.raw handler runs while no record arrives, so a fragment times out on time although its
 * source is quiet: a tenth of the fragment timeout, between 50 ms and 1 s.
 */
function rawTickMs(fragmentTimeoutMs: number): number {
  return Math.min(1_000, Math.max(50, Math.round(fragmentTimeoutMs / 10)));
}

export async function startAisRawConsumer(ctx: ServiceContext, rt: IngestRuntime): Promise<RunningRole> {
  // Offsets are committed only up to the oldest record whose fragments a decoder still holds, so a crash,
  // rebalance or stop re-reads a held fragment with its partner instead of losing it; a fragment whose
  // partner never comes is dead-lettered when it times out, and the commit then moves past it.
  const decoders = new RawAisDecoders({ records: rt.records, codec: rt.codec, settings: aisSettings(rt.config), maxRecordBytes: rt.config.ingestMaxItemBytes, now: rt.now });
  const consumer = new KafkaConsumer(ctx.kafka, {
    groupId: `${ctx.config.topicPrefix}pss-ingest-ais-raw`,
    topics: [ctx.topics.aisRaw],
    maxBatch: 2_000,
    tickMs: rawTickMs(rt.config.aisFragmentTimeoutMs),
  });
  // Partitions may have moved: what this instance held is re-read by their new owner.
  consumer.onRebalance(() => decoders.reset());
  await consumer.run(async (records) => {
    const out: OutRecord[] = [];
    if (records.length > 0) decoders.decode(records, out);
    else decoders.expire(out);
    await rt.queue.add(out);
    return decoders.held();
  });

  return {
    name: 'ingest:ais.raw',
    // Held fragments are not committed, so the next owner of their partitions reads them again.
    stop: () => consumer.stop(),
  };
}

export async function startGateRawConsumer(ctx: ServiceContext, rt: IngestRuntime): Promise<RunningRole> {
  const consumer = new KafkaConsumer(ctx.kafka, { groupId: `${ctx.config.topicPrefix}pss-ingest-gate-raw`, topics: [ctx.topics.gateReadingsRaw], maxBatch: 500 });
  await consumer.run(async (records) => {
    const out: OutRecord[] = [];
    const { values } = await rt.codec.decode('gateReadingsRaw', records);
    for (const { record, value: text } of values) {
      const source = rawSourceOf(record, 'gate.readings.raw', false);
      const outcome = processGateItem(text, { topics: rt.topics, codec: rt.codec, source, maxItemBytes: rt.config.ingestMaxItemBytes, now: rt.now, heardLane: rt.heardLane });
      if (!outcome.accepted) ingestMetrics.rejected.inc({ reason: outcome.reason });
      out.push(outcome.record);
    }
    ingestMetrics.sentences.inc({ kind: 'gate_raw' }, records.length);
    await rt.queue.add(out);
  });
  return { name: 'ingest:gate.readings.raw', stop: () => consumer.stop() };
}
