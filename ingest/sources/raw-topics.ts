// Direct production by other producers: they write raw NMEA lines to `ais.raw` (key: their source name;
// a `source` header overrides it) and unvalidated gate readings to `gate.readings.raw` (key: the gate;
// the `source` header names the producer). A consumer group per raw topic decodes / validates them into the same topics
// as every other path. Offsets are committed only after the produced records are acknowledged, so a crash
// re-reads and re-produces (at least once; consumers of the output topics are idempotent).
import type { RunningRole, ServiceContext } from '../../platform/context.ts';
import { KafkaConsumer, type HeldRecord, type InRecord, type OutRecord } from '../../platform/kafka.ts';
import { AisTally } from '../ais-records.ts';
import { createAisDecoder, type AisDecoder } from '../ais/index.ts';
import { processGateItem } from '../gate/readings.ts';
import { ingestMetrics } from '../metrics.ts';
import type { IngestRuntime } from '../runtime.ts';

/** Enough for every receiver of a national network; beyond it the least recently used decoder is dropped. */
const MAX_RAW_SOURCES = 1_000;

/** ais.raw is keyed by source; gate.readings.raw by gate, so only its `source` header names the source. */
export function rawSourceOf(record: InRecord, fallback: string, keyIsSource: boolean): string {
  const named = record.headers.source ?? (keyIsSource ? record.key : undefined);
  return named !== undefined && named.trim() !== '' ? named.trim() : fallback;
}

export async function startAisRawConsumer(ctx: ServiceContext, rt: IngestRuntime): Promise<RunningRole> {
  let decoders = new Map<string, AisDecoder>();
  // Per source: the oldest record whose fragments its decoder still holds. Offsets are committed only up
  // to the oldest of these, so a crash, rebalance or stop re-reads a held fragment with its partner
  // instead of losing it; a fragment whose partner never comes is dead-lettered when it times out.
  let holding = new Map<string, HeldRecord>();
  const tally = new AisTally();
  const decoderFor = (source: string, out: OutRecord[]): AisDecoder => {
    let decoder = decoders.get(source);
    if (decoder === undefined) {
      decoder = createAisDecoder({ source, now: rt.now, strictTagBlocks: rt.config.aisStrictTagBlocks, fragmentTimeoutMs: rt.config.aisFragmentTimeoutMs });
      if (decoders.size >= MAX_RAW_SOURCES) {
        const [oldest, dropped] = decoders.entries().next().value as [string, AisDecoder];
        decoders.delete(oldest);
        holding.delete(oldest);
        // Its fragments must not vanish with it.
        if (dropped.pendingGroups > 0) rt.records.appendRecords(dropped.flush(), out, tally);
      }
    } else {
      decoders.delete(source);
    }
    decoders.set(source, decoder);
    return decoder;
  };

  const consumer = new KafkaConsumer(ctx.kafka, { groupId: `${ctx.config.topicPrefix}pss-ingest-ais-raw`, topics: [ctx.topics.aisRaw], maxBatch: 2_000 });
  // Partitions may have moved: what this instance held is re-read by their new owner.
  consumer.onRebalance(() => {
    decoders = new Map();
    holding = new Map();
  });
  await consumer.run(async (records) => {
    const out: OutRecord[] = [];
    // Text topics always decode: there are no failures to count.
    const { values } = await rt.codec.decode('aisRaw', records);
    for (const { record, value: text } of values) {
      const source = rawSourceOf(record, 'ais.raw', true);
      const decoder = decoderFor(source, out);
      rt.records.appendRecords(decoder.push(text), out, tally);
      tally.lines += countLines(text);
      if (decoder.pendingGroups === 0) holding.delete(source);
      else if (!holding.has(source)) holding.set(source, { topic: record.topic, partition: record.partition, offset: record.offset });
    }
    tally.publish('raw');
    await rt.queue.add(out);
    return [...holding.values()];
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
      const outcome = processGateItem(text, { topics: rt.topics, codec: rt.codec, source: rawSourceOf(record, 'gate.readings.raw', false), now: rt.now });
      if (!outcome.accepted) ingestMetrics.rejected.inc({ reason: outcome.reason });
      out.push(outcome.record);
    }
    ingestMetrics.sentences.inc({ kind: 'gate_raw' }, records.length);
    await rt.queue.add(out);
  });
  return { name: 'ingest:gate.readings.raw', stop: () => consumer.stop() };
}

function countLines(text: string): number {
  let n = 0;
  for (const line of text.split(/\r\n|\r|\n/)) if (line.trim() !== '') n++;
  return n;
}
