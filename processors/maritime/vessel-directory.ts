import { randomUUID } from 'node:crypto';
import type { RunningRole, ServiceContext } from '../../platform/context.ts';
import { KafkaAdmin, KafkaConsumer } from '../../platform/kafka.ts';
import type { VesselStatic } from '../../schemas/ais.ts';

export interface VesselInfo {
  name: string | null;
  category: string | null;
}

/**
 * Name and category of every vessel, from the compacted ais.static topic. Each processor instance reads
 * the whole topic at every start (a private consumer group that commits nothing), because a vessel's
 * static data and its positions need not land on the same instance; type 24 part A (name) and part B
 * (type) are merged.
 */
export class VesselDirectory {
  readonly #vessels = new Map<number, VesselInfo>();

  get(mmsi: number): VesselInfo | undefined {
    return this.#vessels.get(mmsi);
  }

  apply(report: Pick<VesselStatic, 'mmsi' | 'name' | 'ship_category'>): void {
    const known = this.#vessels.get(report.mmsi);
    this.#vessels.set(report.mmsi, {
      name: report.name ?? known?.name ?? null,
      category: report.ship_category ?? known?.category ?? null,
    });
  }

  get size(): number {
    return this.#vessels.size;
  }
}

/** How long start-up waits for the directory to read ais.static before evaluating zones without it. */
const CATCH_UP_TIMEOUT_MS = 30_000;

/**
 * Follows ais.static into the directory and resolves once it has read everything the topic held at
 * start (or after CATCH_UP_TIMEOUT_MS, with a warning), so zone evaluation knows vessel categories from
 * its first report.
 */
export async function followVesselDirectory(ctx: ServiceContext, directory: VesselDirectory): Promise<RunningRole> {
  const admin = new KafkaAdmin(ctx.kafka);
  const ends = await admin.endOffsets(ctx.topics.aisStatic).finally(() => admin.close());
  const behind = new Map([...ends].filter(([, end]) => end > 0n));
  let caughtUp!: () => void;
  const current = new Promise<void>((resolve) => (caughtUp = resolve));
  if (behind.size === 0) caughtUp();

  const consumer = new KafkaConsumer(ctx.kafka, {
    groupId: `${ctx.config.topicPrefix}maritime-directory-${randomUUID()}`,
    topics: [ctx.topics.aisStatic],
    startAt: 'earliest',
    maxBatch: 2_000,
    commitOffsets: false,
  });
  await consumer.run(async (records) => {
    const { values, failures } = await ctx.codec.decode('aisStatic', records);
    for (const { record, error } of failures) ctx.log.warn({ offset: String(record.offset), reason: error.code, detail: error.message }, 'unreadable static record skipped');
    for (const { record, value } of values) {
      try {
        directory.apply(value);
      } catch (err) {
        // Another producer's JSON that is not a report (e.g. null); it must not block the directory.
        ctx.log.warn({ err, offset: String(record.offset) }, 'unusable static record skipped');
      }
    }
    for (const record of records) {
      const end = behind.get(record.partition);
      if (end !== undefined && record.offset >= end - 1n) behind.delete(record.partition);
    }
    if (behind.size === 0) caughtUp();
  });
  const timer = setTimeout(() => {
    ctx.log.warn({ partitions_behind: [...behind.keys()] }, 'vessel directory still reading ais.static; zones are evaluated without it meanwhile');
    caughtUp();
  }, CATCH_UP_TIMEOUT_MS);
  await current;
  clearTimeout(timer);
  return { name: 'vessel-directory', stop: () => consumer.stop() };
}
