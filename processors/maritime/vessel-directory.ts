import { randomUUID } from 'node:crypto';
import type { RunningRole, ServiceContext } from '../../platform/context.ts';
import { withDeadline } from '../../platform/deadline.ts';
import { KafkaAdmin, KafkaConsumer } from '../../platform/kafka/index.ts';
import type { VesselStatic } from '../../schemas/ais.ts';
import { staticSinkGroup } from '../vessels/static-sink.ts';
import { readVesselDirectory } from '../vessels/vessel-store.ts';

export interface VesselInfo {
  name: string | null;
  category: string | null;
}

/**
 * Name and category of every vessel, from the compacted ais.static topic. Every processor instance holds
 * all of it (a private consumer group that commits nothing), because a vessel's static data and its
 * positions need not land on the same instance; type 24 part A (name) and part B (type) are merged. At
 * start it loads what the vessels table holds and follows the topic from there (see `directoryStart`). It also knows how far it has read each partition, so the zone processor can wait
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

  /** Whether the name or category of one of `held` changed since `takeLearned` was last called. */
  learnedAny(held: ReadonlyMap<number, unknown>): boolean {
    // The smaller side: after the start every vessel of the vessels table counts as learned.
    if (held.size < this.#learned.size) {
      for (const mmsi of held.keys()) if (this.#learned.has(mmsi)) return true;
      return false;
    }
    for (const mmsi of this.#learned) if (held.has(mmsi)) return true;
    return false;
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

export type DirectoryStart = { from: Map<number, bigint> } | { replay: string };

/**
 * Where the directory follows ais.static from once it has loaded the vessels table, given the static
 * sink's committed offsets (read BEFORE the table: the sink commits after its upsert, so the table holds
 * every record below them) and the topic's first and next offsets; or why the whole topic must be
 * replayed instead. A partition the sink has not committed (it never read it: empty, or the sink is new)
 * is followed from its start.
 */
export function directoryStart(committed: ReadonlyMap<number, bigint>, earliest: ReadonlyMap<number, bigint>, latest: ReadonlyMap<number, bigint>): DirectoryStart {
  if (latest.size === 0) return { replay: 'ais.static has no partitions' };
  const from = new Map<number, bigint>();
  for (const [partition, end] of latest) {
    const start = earliest.get(partition) ?? 0n;
    const offset = committed.get(partition) ?? start;
    // Beyond the end: the topic was recreated, and the table describes records that are no longer there.
    if (offset > end) return { replay: `the static sink's offset ${offset} is past the end ${end} of partition ${partition}` };
    // Before the start: records deleted while the sink was behind are gone for every reader alike.
    from.set(partition, offset < start ? start : offset);
  }
  return { from };
}

export interface FollowOptions {
  /** False: replay the whole topic even when the table could be used (the benchmark compares both). */
  fromTable?: boolean;
}

/** How long start-up waits for the directory to read ais.static before evaluating zones without it. */
const CATCH_UP_TIMEOUT_MS = 30_000;

/**
 * Follows ais.static into the directory and resolves once it has read everything the topic held at
 * start (or after CATCH_UP_TIMEOUT_MS, with a warning), so zone evaluation knows vessel categories from
 * its first report.
 */
export async function followVesselDirectory(ctx: ServiceContext, directory: VesselDirectory, options: FollowOptions = {}): Promise<VesselDirectoryRole> {
  const topic = ctx.topics.aisStatic;
  const started = performance.now();
  const from = options.fromTable === false ? undefined : await loadFromTable(ctx, directory);
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
    ...(from ? { startOffsets: from } : {}),
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
  ctx.log.info({ vessels: directory.size, ms: Math.round(performance.now() - started), from_table: from !== undefined }, 'vessel directory loaded');
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

/**
 * Loads the vessels table into the directory and returns the offsets to follow ais.static from; undefined
 * (after a log line saying why) when the topic must be replayed whole: the topic was recreated, or the table or the broker could not be read. Measured on 100,000 vessels:
 * 0.65–0.85 s from the table against 5.2–7.5 s replaying the topic (bench vessel-directory).
 */
async function loadFromTable(ctx: ServiceContext, directory: VesselDirectory): Promise<Map<number, bigint> | undefined> {
  const topic = ctx.topics.aisStatic;
  const admin = new KafkaAdmin(ctx.kafka);
  try {
    const committed = await admin.committedOffsets(staticSinkGroup(ctx.config.topicPrefix), topic);
    const start = directoryStart(committed, await admin.startOffsets(topic), await admin.endOffsets(topic));
    if ('replay' in start) {
      ctx.log.info({ reason: start.replay }, 'vessel directory replays ais.static');
      return undefined;
    }
    for (const row of await readVesselDirectory(ctx.pool)) {
      directory.apply({ mmsi: row.mmsi, name: row.name ?? undefined, ship_category: (row.category ?? undefined) as VesselStatic['ship_category'] });
    }
    for (const [partition, offset] of start.from) directory.readUpTo(partition, offset);
    return start.from;
  } catch (err) {
    ctx.log.warn({ err }, 'vessel directory could not start from the vessels table; replaying ais.static');
    return undefined;
  } finally {
    await admin.close().catch(() => undefined);
  }
}
