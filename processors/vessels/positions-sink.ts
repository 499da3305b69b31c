// The positions sink: a consumer group on ais.positions writing every report with a position into the
// day-partitioned vessel_positions table (one COPY per batch and writer), and each vessel's newest
// position into `vessels` about once a second (pending-last-positions.ts). Offsets are committed after
// both are written; a re-read batch (crash, rebalance) meets the primary key and adds no row, and never
// moves a last position backwards.
// Maintenance (every instance, at start and hourly): create the days ahead, drop those past retention,
// index the days that have ended (partitions.ts). The first maintenance runs beside the consumer, so an
// index build on a large closed day does not hold up the start.
import type { RunningRole, ServiceContext } from '../../platform/context.ts';
import { compileSchema, describeErrors } from '../../ingest/validation.ts';
import { KafkaConsumer, type BatchHandler, type HeldRecord } from '../../platform/kafka/index.ts';
import { counter, histogram } from '../../platform/metrics.ts';
import { vesselPositionSchema, type VesselPosition } from '../../schemas/ais.ts';
import { maintainPartitions, type Maintained } from './partitions.ts';
import { DEFAULT_FLUSH, PendingLastPositions, type FlushPolicy } from './pending-last-positions.ts';
import { daysAhead, daysOf, keepFromDay, isRetained, positionRow, splitByVessel, type PositionRow } from './position-rows.ts';
import { createPartitions, insertPositions, partitionDays, updateLastPositions } from './vessel-store.ts';

const stored = counter('pss_vessel_positions_stored_total', 'Positions stored in PostGIS (re-read ones not counted)');
const skipped = counter('pss_vessel_positions_skipped_total', 'Position records not stored, by reason', ['reason'], { reason: ['unreadable', 'invalid', 'no_position_or_future', 'past_retention'] });
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
  /** How long last positions gather before `vessels` is written (tests shorten it). */
  lastPositionFlush?: FlushPolicy;
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
      // Vessels split over `writers` connections, each its own COPY: the server's work per row (index
      // inserts, partition routing) then runs on several cores. A failed part fails the batch, which is
      // re-read whole; the parts already committed meet their keys and add nothing.
      const added = await Promise.all(splitByVessel(rows, writers).map((part) => insertPositions(ctx.pool, part)));
      return added.reduce((a, b) => a + b, 0);
    } catch (err) {
      if ((err as { code?: string }).code === NO_PARTITION) known = new Set(await partitionDays(ctx.pool));
      throw err;
    }
  };

  const writeLastPositions = async (pending: PendingLastPositions) => {
    const rows = pending.rows();
    await Promise.all(splitByVessel(rows, writers).map((part) => updateLastPositions(ctx.pool, part)));
    pending.written(rows);
  };

  await createPartitions(ctx.pool, daysAhead(now(), ahead));
  known = new Set(await partitionDays(ctx.pool));
  // One handler per consumer: its pending last positions hold records of its own partitions.
  const handler = (pending: PendingLastPositions): BatchHandler => async (records) => {
    const started = performance.now();
    const { values, failures } = await ctx.codec.decode('aisPositions', records);
    if (failures.length > 0) skipped.inc({ reason: 'unreadable' }, failures.length);
    for (const { record, error } of failures) ctx.log.warn({ offset: String(record.offset), partition: record.partition, reason: error.code }, 'unreadable position record skipped');
    const keepFrom = keepFromDay(now(), retentionDays);
    const rows: PositionRow[] = [];
    // Only where each row came from: a record's value may share its fetch's buffer.
    const from: HeldRecord[] = [];
    for (const { record, value } of values) {
      // Values are trusted as ingest validated them, but another producer's record that is not a report
      // would fail the batch's SQL on every retry and block its partition; it is skipped instead.
      if (!isPosition(value)) {
        skipped.inc({ reason: 'invalid' });
        ctx.log.warn({ offset: String(record.offset), partition: record.partition, reason: describeErrors(isPosition.errors) }, 'invalid position record skipped');
        continue;
      }
      const row = positionRow(value);
      if (!row) skipped.inc({ reason: 'no_position_or_future' });
      else if (!isRetained(row, keepFrom)) skipped.inc({ reason: 'past_retention' });
      else {
        rows.push(row);
        from.push({ topic: record.topic, partition: record.partition, offset: record.offset });
      }
    }
    if (rows.length > 0) {
      stored.inc(await store(rows));
      const at = performance.now();
      rows.forEach((row, i) => pending.add(row, from[i]!, at));
    }
    if (pending.due(performance.now())) await writeLastPositions(pending);
    if (records.length > 0) batchSeconds.observe((performance.now() - started) / 1000);
    return pending.held();
  };

  // Several consumers of one group on this instance: while one batch is written, the next is fetched and
  // decoded (one consumer spent most of its time waiting on the database with the next batch unread).
  const flush = options.lastPositionFlush ?? DEFAULT_FLUSH;
  const consumers: { consumer: KafkaConsumer; pending: PendingLastPositions }[] = [];
  for (let i = 0; i < (options.consumers ?? ctx.config.positionSinkConsumers); i++) {
    const consumer = new KafkaConsumer(ctx.kafka, {
      groupId: `${ctx.config.topicPrefix}vessel-positions`,
      topics: [ctx.topics.aisPositions],
      startAt: 'earliest',
      maxBatch: options.maxBatch ?? 5_000,
      lingerMs: 50,
      // A quiet partition still gets its last positions written on time.
      tickMs: Math.max(50, Math.min(500, flush.maxAgeMs / 2)),
    });
    const pending = new PendingLastPositions(flush);
    consumers.push({ consumer, pending });
    await consumer.run(handler(pending));
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
      await Promise.all(consumers.map(({ consumer }) => consumer.stop()));
      // Their records are not committed, so whoever reads the partitions next writes them too; written
      // here as well, `vessels` is current at once. A failure only leaves that to the next reader.
      await Promise.all(consumers.map(({ pending }) => writeLastPositions(pending).catch((err: unknown) => {
        ctx.log.warn({ err, vessels: pending.size }, 'last positions not written at stop; the next reader of their partitions writes them');
      })));
    },
  };
}
