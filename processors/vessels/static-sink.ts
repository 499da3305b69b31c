// The static sink: a consumer group on the compacted ais.static topic merging each vessel's static and
// voyage data into `vessels`. A new group starts from the earliest offset, so a fresh database fills from
// what compaction kept; re-reading a batch merges the same values again (idempotent).
import type { RunningRole, ServiceContext } from '../../platform/context.ts';
import { KafkaConsumer } from '../../platform/kafka/index.ts';
import { counter } from '../../platform/metrics.ts';
import { compileSchema, describeErrors } from '../../ingest/validation.ts';
import { vesselStaticSchema, type VesselStatic } from '../../schemas/ais.ts';
import { staticRows } from './static-rows.ts';
import { upsertStatic } from './vessel-store.ts';

const unreadable = counter('pss_vessel_static_unreadable_total', 'Records on ais.static the vessel sink could not read or that are not static reports');

const isStatic = compileSchema<VesselStatic>(vesselStaticSchema);

/**
 * The sink's consumer group. Its committed offsets say how much of ais.static the vessels table holds
 * (commits follow the upsert), which lets the vessel directory start from the table.
 */
export function staticSinkGroup(topicPrefix: string): string {
  return `${topicPrefix}vessel-static`;
}

export async function startStaticSink(ctx: ServiceContext): Promise<RunningRole> {
  const consumer = new KafkaConsumer(ctx.kafka, {
    groupId: staticSinkGroup(ctx.config.topicPrefix),
    topics: [ctx.topics.aisStatic],
    startAt: 'earliest',
    maxBatch: 2_000,
  });
  await consumer.run(async (records) => {
    const { values, failures } = await ctx.codec.decode('aisStatic', records);
    if (failures.length > 0) unreadable.inc(failures.length);
    // A compacted topic's tombstone or another producer's JSON that is not a report is skipped, never
    // retried: its values would fail the batch's SQL on every attempt and block the partition.
    const reports: VesselStatic[] = [];
    for (const { record, value } of values) {
      if (isStatic(value)) reports.push(value);
      else {
        unreadable.inc();
        ctx.log.warn({ offset: String(record.offset), partition: record.partition, reason: describeErrors(isStatic.errors) }, 'invalid static record skipped');
      }
    }
    await upsertStatic(ctx.pool, staticRows(reports));
  });
  return { name: 'vessel-static-sink', stop: () => consumer.stop() };
}
