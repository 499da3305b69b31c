// The positions sink: a consumer group on ais.positions writing every report with a position into the
// day-partitioned vessel_positions table, and each vessel's newest position into `vessels`, in one
// transaction per batch. Offsets are committed after it commits; a re-read batch (crash, rebalance)
// meets the primary key and adds no row, and never moves a last position backwards.
// Maintenance (every instance, at start and hourly): create the days ahead, drop those past retention,
// index the days that have ended (partitions.ts). The first maintenance runs beside the consumer, so an
// index build on a large closed day does not hold up the start.
import type { RunningRole, ServiceContext } from '../../platform/context.ts';
import { compileSchema, describeErrors } from '../../ingest/validation.ts';
import { KafkaConsumer, type BatchHandler } from '../../platform/kafka.ts';
import { counter, histogram } from '../../platform/metrics.ts';
import { inTransaction } from '../../platform/postgres.ts';
import { vesselPositionSchema, type VesselPosition } from '../../schemas/ais.ts';
import { maintainPartitions, type Maintained } from './partitions.ts';
import { daysAhead, daysOf, keepFromDay, latestPerVessel, positionRow, retained, splitByVessel, type PositionRow } from './position-rows.ts';
import { createPartitions, insertPositions, partitionDays, updateLastPositions } from './vessel-store.ts';

const stored = counter('pss_vessel_positions_stored_total', 'Positions stored in PostGIS (re-read ones not counted)');
const skipped = counter('pss_vessel_positions_skipped_total', 'Position records not stored, by reason', ['reason']);
const batchSeconds = histogram('pss_vessel_positions_batch_seconds', 'Time to store one batch of positions', [], [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]);

const isPosition = compileSchema<VesselPosition>(vesselPositionSchema);

const MAINTENANCE_EVERY_MS = 60 * 60_000;
/** Postgres's "no partition of relation found for row": a partition vanished (retention on another instance). */
const NO_PARTITION = '23514';

export interface PositionSinkOptions {
  /** Wall clock for retention and partitions ahead (tests pass their own). */
  now?: () => number;
  /** Largest batch handed to the handler. */
  maxBatch?: number;
  /** Connections a batch is written over in parallel (default 2; at most the pool size less one). */
  writers?: number;
  /** Consumers in the group on this instance (default the setting PSS_POSITION_SINK_CONSUMERS). */
  consumers?: number;
}

export interface PositionSink extends RunningRole {
  /** Runs partition maintenance now (also hourly); returns what it created and dropped. */
  maintain(): Promise<Maintained>;
}

export async function startPositionSink(ctx: ServiceContext, options: PositionSinkOptions = {}): Promise<PositionSink> {
  const now = options.now ?? Date.now;
  const { positionRetentionDays: retentionDays, positionPartitionsAhead: ahead } = ctx.config;
  /** Days known to have a partition: the sink creates the others before writing into them. */
  let known = new Set<string>();
  const writers = Math.max(1, Math.min(options.writers ?? 2, ctx.config.databasePoolSize - 1));

  const maintain = async () => {
    const done = await maintainPartitions(ctx.pool, now(), { retentionDays, ahead }, ctx.log);
    known = new Set(await partitionDays(ctx.pool));
    if (done.created.length || done.dropped.length || done.indexed.length) ctx.log.info(done, 'vessel_positions partitions maintained');
    return done;
  };

  const store = async (rows: PositionRow[]) => {
    const missing = daysOf(rows).filter((day) => !known.has(day));
    if (missing.length > 0) {
      await createPartitions(ctx.pool, missing);
      for (const day of missing) known.add(day);
    }
    try {
      // Vessels split over `writers` connections, each its own transaction: the server's work per row
      // (three index inserts, partition routing) then runs on several cores. A failed part fails the
      // batch, which is re-read whole; the parts already committed meet their keys and add nothing.
      const parts = splitByVessel(rows, writers);
      const added = await Promise.all(parts.map((part) => inTransaction(ctx.pool, async (client) => {
        const n = await insertPositions(client, part);
        await updateLastPositions(client, latestPerVessel(part));
        return n;
      })));
      return added.reduce((a, b) => a + b, 0);
    } catch (err) {
      if ((err as { code?: string }).code === NO_PARTITION) known = new Set(await partitionDays(ctx.pool));
      throw err;
    }
  };

  await createPartitions(ctx.pool, daysAhead(now(), ahead));
  known = new Set(await partitionDays(ctx.pool));
  const handle: BatchHandler = async (records) => {
    const started = performance.now();
    const { values, failures } = await ctx.codec.decode('aisPositions', records);
    if (failures.length > 0) skipped.inc({ reason: 'unreadable' }, failures.length);
    for (const { record, error } of failures) ctx.log.warn({ offset: String(record.offset), partition: record.partition, reason: error.code }, 'unreadable position record skipped');
    const rows: PositionRow[] = [];
    for (const { record, value } of values) {
      // Values are trusted as ingest validated them, but another producer's record that is not a report
      // would fail the batch's SQL on every retry and block its partition; it is skipped instead.
      if (!isPosition(value)) {
        skipped.inc({ reason: 'invalid' });
        ctx.log.warn({ offset: String(record.offset), partition: record.partition, reason: describeErrors(isPosition.errors) }, 'invalid position record skipped');
        continue;
      }
      const row = positionRow(value);
      if (row) rows.push(row);
      else skipped.inc({ reason: 'no_position_or_future' });
    }
    const kept = retained(rows, keepFromDay(now(), retentionDays));
    if (kept.length < rows.length) skipped.inc({ reason: 'past_retention' }, rows.length - kept.length);
    if (kept.length > 0) stored.inc(await store(kept));
    batchSeconds.observe((performance.now() - started) / 1000);
  };

  // Several consumers of one group on this instance: while one batch is written, the next is fetched and
  // decoded (one consumer spent most of its time waiting on the database with the next batch unread).
  const consumers: KafkaConsumer[] = [];
  for (let i = 0; i < (options.consumers ?? ctx.config.positionSinkConsumers); i++) {
    const consumer = new KafkaConsumer(ctx.kafka, {
      groupId: `${ctx.config.topicPrefix}vessel-positions`,
      topics: [ctx.topics.aisPositions],
      startAt: 'earliest',
      maxBatch: options.maxBatch ?? 5_000,
      lingerMs: 50,
    });
    consumers.push(consumer);
    await consumer.run(handle);
  }

  const background = () => {
    maintain().catch((err: unknown) => ctx.log.warn({ err }, 'vessel_positions partition maintenance failed; retried next hour'));
  };
  background();
  const timer = setInterval(background, MAINTENANCE_EVERY_MS);
  timer.unref();
  return {
    name: 'vessel-positions-sink',
    maintain,
    stop: async () => {
      clearInterval(timer);
      await Promise.all(consumers.map((c) => c.stop()));
    },
  };
}
