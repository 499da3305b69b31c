import { randomUUID } from 'node:crypto';
import type { RunningRole, ServiceContext } from '../../platform/context.ts';
import { withDeadline } from '../../platform/deadline.ts';
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
 * (type) are merged. It also knows how far it has read each partition, so the zone processor can wait
 * for the static reports that were on the topic before a position (see `followVesselDirectory`).
 */
export class VesselDirectory {
  readonly #vessels = new Map<number, VesselInfo>();
  /** Per partition of ais.static: the offset after the last record applied. */
  readonly #read = new Map<number, bigint>();
  /** Vessels whose name or category changed since `takeLearned` was last called. */
  #learned = new Set<number>();
  readonly #waiters = new Set<() => void>();

  get(mmsi: number): VesselInfo | undefined {
    return this.#vessels.get(mmsi);
  }

  apply(report: Pick<VesselStatic, 'mmsi' | 'name' | 'ship_category'>): void {
    const known = this.#vessels.get(report.mmsi);
    const next = {
      name: report.name ?? known?.name ?? null,
      category: report.ship_category ?? known?.category ?? null,
    };
    if (next.name === known?.name && next.category === known.category) return;
    this.#vessels.set(report.mmsi, next);
    this.#learned.add(report.mmsi);
  }

  /** The vessels whose name or category changed since the last call. */
  takeLearned(): Set<number> {
    const learned = this.#learned;
    this.#learned = new Set();
    return learned;
  }

  /** Every record of `partition` below `next` has been applied. */
  readUpTo(partition: number, next: bigint): void {
    if (next > (this.#read.get(partition) ?? 0n)) this.#read.set(partition, next);
    for (const check of [...this.#waiters]) check();
  }

  /** Whether every record below `ends` (per partition) has been applied. */
  hasRead(ends: ReadonlyMap<number, bigint>): boolean {
    for (const [partition, end] of ends) if ((this.#read.get(partition) ?? 0n) < end) return false;
    return true;
  }

  /** Resolves true once `hasRead(ends)`, or false after `timeoutMs`. */
  untilRead(ends: ReadonlyMap<number, bigint>, timeoutMs: number): Promise<boolean> {
    if (this.hasRead(ends)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const settle = (read: boolean) => {
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve(read);
      };
      const check = () => {
        if (this.hasRead(ends)) settle(true);
      };
      const timer = setTimeout(() => settle(false), Math.max(0, timeoutMs));
      this.#waiters.add(check);
    });
  }

  get size(): number {
    return this.#vessels.size;
  }
}

export interface VesselDirectoryRole extends RunningRole {
  /**
   * Resolves once the directory has applied every record ais.static holds now (its end offsets, read with
   * a ListOffsets request), or after `boundMs`. True when it got there; false when the bound passed or
   * the end offsets could not be read.
   *
   * Why this gives causality: a static report acknowledged before a position was produced lies below
   * the end offsets read after that position was consumed, so a batch evaluated after this resolves
   * true sees every such report. (On one broker, a static report and a position produced in the same
   * request are both appended before the position can be fetched, so that holds for them too.)
   */
  current(boundMs: number): Promise<boolean>;
}

/** How long start-up waits for the directory to read ais.static before evaluating zones without it. */
const CATCH_UP_TIMEOUT_MS = 30_000;

/**
 * Follows ais.static into the directory and resolves once it has read everything the topic held at
 * start (or after CATCH_UP_TIMEOUT_MS, with a warning), so zone evaluation knows vessel categories from
 * its first report.
 */
export async function followVesselDirectory(ctx: ServiceContext, directory: VesselDirectory): Promise<VesselDirectoryRole> {
  const topic = ctx.topics.aisStatic;
  let admin: KafkaAdmin | undefined;
  const dropAdmin = () => {
    void admin?.close().catch(() => undefined);
    admin = undefined;
  };
  const current = async (boundMs: number): Promise<boolean> => {
    const started = performance.now();
    let ends: Map<number, bigint>;
    try {
      admin ??= new KafkaAdmin(ctx.kafka);
      ends = await withDeadline(admin.endOffsets(topic), boundMs);
    } catch (err) {
      // A fresh connection next time, in case this one is the problem (as readiness probes do).
      dropAdmin();
      ctx.log.warn({ err }, 'ais.static end offsets unavailable');
      return false;
    }
    return directory.untilRead(ends, boundMs - (performance.now() - started));
  };

  const consumer = new KafkaConsumer(ctx.kafka, {
    groupId: `${ctx.config.topicPrefix}maritime-directory-${randomUUID()}`,
    topics: [topic],
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
    // Unreadable records count as read: the directory is current past them.
    const read = new Map<number, bigint>();
    for (const record of records) read.set(record.partition, record.offset + 1n);
    for (const [partition, next] of read) directory.readUpTo(partition, next);
  });
  if (!(await current(CATCH_UP_TIMEOUT_MS))) {
    ctx.log.warn('vessel directory still reading ais.static; zones are evaluated without it meanwhile');
  }
  // No vessel state is held yet: what the catch-up learned reaches each vessel with its next report.
  directory.takeLearned();
  return {
    name: 'vessel-directory',
    current,
    stop: async () => {
      await consumer.stop();
      dropAdmin();
    },
  };
}
