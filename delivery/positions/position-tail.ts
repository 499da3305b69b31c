// This instance's own reader of ais.positions for the position stream: every partition, no consumer group
// (nothing shared or committed), from a little before the end at start-up so the first subscribers see the
// vessels already under way. Each decoded report goes to LatestPositions; the hub flushes it once a second.
import { setTimeout as sleep } from 'node:timers/promises';
import type { TopicCodec } from '../../platform/codec/index.ts';
import type { InRecord, KafkaPartitionReader } from '../../platform/kafka/index.ts';
import type { Logger } from '../../platform/log.ts';
import type { VesselPosition } from '../../schemas/ais.ts';
import type { LatestPositions } from './latest-positions.ts';

const FETCH = { maxWaitMs: 500, minBytes: 1, maxBytes: 8 * 1024 * 1024 };
const MAX_BACKOFF_MS = 5_000;

/** Per partition, `back` records before the end, not before the log's start. */
export async function startingOffsets(reader: KafkaPartitionReader, back: number): Promise<number[]> {
  const [earliest, latest] = await Promise.all([reader.offsets('earliest'), reader.offsets('latest')]);
  return latest.map((end, p) => Math.max(Number(earliest[p] ?? 0n), Number(end) - back));
}

export class PositionTail {
  #position: number[] = [];
  readonly #stopping = new AbortController();
  #loop: Promise<void> | undefined;

  constructor(
    private readonly reader: KafkaPartitionReader,
    private readonly codec: TopicCodec,
    private readonly log: Logger,
    private readonly now: () => number,
  ) {}

  run(from: readonly number[], into: LatestPositions): void {
    this.#position = [...from];
    this.#loop ??= this.#run(into);
  }

  async #run(into: LatestPositions): Promise<void> {
    let failures = 0;
    while (!this.#stopping.signal.aborted) {
      try {
        const records = await this.reader.fetch(this.#position.map(BigInt), FETCH);
        if (this.#stopping.signal.aborted) return;
        failures = 0;
        await this.#take(records, into);
      } catch (err) {
        const delay = Math.min(MAX_BACKOFF_MS, 100 * 2 ** failures++);
        this.log.warn({ err, retry_in_ms: delay }, 'position stream: reading ais.positions failed; retrying');
        await sleep(delay, undefined, { signal: this.#stopping.signal }).catch(() => undefined);
        await this.#skipDeleted().catch(() => undefined);
      }
    }
  }

  async #take(records: InRecord[], into: LatestPositions): Promise<void> {
    const { values } = await this.codec.decode('aisPositions', records);
    const positions = new Map<InRecord, VesselPosition>(values.map((v) => [v.record, v.value]));
    const seenAt = this.now();
    for (const r of records) {
      const offset = Number(r.offset);
      this.#position[r.partition] = Math.max(this.#position[r.partition] ?? 0, offset + 1);
      const p = positions.get(r);
      if (p?.lat === undefined || p.lon === undefined) {
        into.skip(r.partition, offset);
        continue;
      }
      into.take({ mmsi: p.mmsi, partition: r.partition, offset, lat: p.lat, lon: p.lon, reportedAt: Date.parse(p.reported_at), seenAt, json: positionJson(p) });
    }
  }

  /** After a long outage the log may have been truncated below our position: carry on from its start. */
  async #skipDeleted(): Promise<void> {
    const earliest = (await this.reader.offsets('earliest')).map(Number);
    earliest.forEach((start, p) => {
      if ((this.#position[p] ?? 0) < start) this.#position[p] = start;
    });
  }

  async stop(): Promise<void> {
    this.#stopping.abort();
    await this.#loop;
  }
}

/** What the stream sends of a report: where, how it moves, when; the rest is in the vessel API. */
export function positionJson(p: VesselPosition): string {
  return JSON.stringify({
    mmsi: p.mmsi,
    lat: p.lat,
    lon: p.lon,
    ...(p.sog === undefined ? {} : { sog: p.sog }),
    ...(p.cog === undefined ? {} : { cog: p.cog }),
    ...(p.heading === undefined ? {} : { heading: p.heading }),
    ...(p.nav_status === undefined ? {} : { nav_status: p.nav_status }),
    reported_at: p.reported_at,
  });
}
