// What every ingest path of one service instance shares: the record mapping (with the service's codec),
// and one queue in front of the shared Kafka producer, so that every source's back-pressure reflects the
// same producer queue. Built once per ServiceContext, on first use (by the ingest role or the first HTTP
// ingest request, whichever comes first).
import type { TopicCodec } from '../platform/codec/index.ts';
import type { Config } from '../platform/config.ts';
import type { ServiceContext } from '../platform/context.ts';
import type { TopicId } from '../platform/topics.ts';
import { AisRecords } from './ais-records.ts';
import { FeedWatch } from './feed-watch.ts';
import { refusedRecordLetter } from './dead-letter.ts';
import { startIngestSeries } from './metrics.ts';
import { ProducerQueue, type ProducerQueueOptions } from './producer-queue.ts';
import { sendStaticFirst } from './static-first.ts';

export interface IngestRuntime {
  config: Config;
  topics: Record<TopicId, string>;
  codec: TopicCodec;
  records: AisRecords;
  queue: ProducerQueue;
  now: () => number;
  /** When each AIS feed was last heard (feed silence, docs/operations.md). */
  feeds: FeedWatch;
  /** When each gate lane was last heard, when PSS_GATE_LANE_SILENCE_MS is set. */
  lanes: FeedWatch | undefined;
  /** Hands a gate lane to `lanes`: the GateContext hook of both gate paths. */
  heardLane: ((lane: string) => void) | undefined;
}

export function producerQueueFor(ctx: Pick<ServiceContext, 'config' | 'log' | 'producer' | 'topics'>, replaceRefused?: ProducerQueueOptions['replaceRefused']): ProducerQueue {
  return new ProducerQueue({
    send: (records) => sendStaticFirst((group) => ctx.producer.send(group), records, ctx.topics.aisStatic),
    maxBatchRecords: ctx.config.ingestBatchRecords,
    lingerMs: ctx.config.ingestLingerMs,
    maxInFlight: ctx.config.ingestMaxInFlight,
    maxQueuedRecords: ctx.config.ingestMaxQueuedRecords,
    log: ctx.log.child({ component: 'ingest-queue' }),
    ...(replaceRefused ? { replaceRefused } : {}),
  });
}

export type RuntimeContext = Pick<ServiceContext, 'config' | 'log' | 'producer' | 'topics' | 'codec'>;

export function createIngestRuntime(ctx: RuntimeContext): IngestRuntime {
  // A record Kafka refuses for good is replaced by its (bounded) dead letter, never retried forever.
  const queue = producerQueueFor(ctx, (record, code) => refusedRecordLetter(record, code, ctx.topics, ctx.codec, Date.now()));
  const feeds = new FeedWatch({ fixedMs: ctx.config.feedSilenceMs, minMs: ctx.config.feedSilenceMinMs, maxMs: ctx.config.feedSilenceMaxMs });
  const records = new AisRecords(ctx.topics, ctx.codec, (source, reportedAt) => feeds.heard(source, Date.now(), reportedAt));
  // Lanes follow the shifts, so their silence is only judged against a configured limit, never a learned rate.
  const limit = ctx.config.gateLaneSilenceMs;
  const lanes = limit > 0 ? new FeedWatch({ fixedMs: limit, minMs: limit, maxMs: limit }) : undefined;
  const heardLane = lanes === undefined ? undefined : (lane: string) => lanes.heard(lane, Date.now());
  startIngestSeries(ctx.topics);
  return { config: ctx.config, topics: ctx.topics, codec: ctx.codec, records, queue, now: Date.now, feeds, lanes, heardLane };
}

const runtimes = new WeakMap<RuntimeContext, IngestRuntime>();

/** The runtime of `ctx` if one was started (by the ingest role or an HTTP ingest request), without starting one. */
export function startedIngestRuntime(ctx: RuntimeContext): IngestRuntime | undefined {
  return runtimes.get(ctx);
}

export function ingestRuntime(ctx: RuntimeContext): IngestRuntime {
  let runtime = runtimes.get(ctx);
  if (runtime === undefined) {
    runtime = createIngestRuntime(ctx);
    runtimes.set(ctx, runtime);
  }
  return runtime;
}
