// The static sink: a consumer group on the compacted ais.static topic merging each vessel's static and
// voyage data into `vessels`. A new group starts from the earliest offset, so a fresh database fills from
// what compaction kept; re-reading a batch merges the same values again (idempotent).
import type { RunningRole, ServiceContext } from '../../platform/context.ts';
import { KafkaConsumer } from '../../platform/kafka.ts';
import { counter } from '../../platform/metrics.ts';
import type { VesselStatic } from '../../schemas/ais.ts';
import { staticRows } from './static-rows.ts';
import { upsertStatic } from './vessel-store.ts';

const unreadable = counter('pss_vessel_static_unreadable_total', 'Records on ais.static the vessel sink could not read');

export async function startStaticSink(ctx: ServiceContext): Promise<RunningRole> {
  const consumer = new KafkaConsumer(ctx.kafka, {
    groupId: `${ctx.config.topicPrefix}vessel-static`,
    topics: [ctx.topics.aisStatic],
    startAt: 'earliest',
    maxBatch: 2_000,
  });
  await consumer.run(async (records) => {
    const { values, failures } = await ctx.codec.decode('aisStatic', records);
    if (failures.length > 0) unreadable.inc(failures.length);
    // A compacted topic's tombstone or another producer's JSON that is not a report is skipped, never retried.
    const reports = values.map((v) => v.value).filter((v): v is VesselStatic => typeof v === 'object' && v !== null && typeof v.mmsi === 'number' && typeof v.reported_at === 'string');
    await upsertStatic(ctx.pool, staticRows(reports));
  });
  return { name: 'vessel-static-sink', stop: () => consumer.stop() };
}
