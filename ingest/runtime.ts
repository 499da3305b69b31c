// What every ingest path of one service instance shares: the value encoder (JSON or schema registry),
// the record mapping, and one queue in front of the shared Kafka producer, so that every source's
// back-pressure reflects the same producer queue. Built once per ServiceContext, on first use (by the
// ingest role or the first HTTP ingest request, whichever comes first).
import type { Config } from '../platform/config.ts';
import type { ServiceContext } from '../platform/context.ts';
import type { TopicId } from '../platform/topics.ts';
import { AisRecords } from './ais-records.ts';
import { jsonEncoder, type ValueEncoder } from './encoding.ts';
import { refusedRecordLetter } from './dead-letter.ts';
import { ProducerQueue, type ProducerQueueOptions } from './producer-queue.ts';
import { registryEncoder } from './schema-registry.ts';

export interface IngestRuntime {
  config: Config;
  topics: Record<TopicId, string>;
  encoder: ValueEncoder;
  records: AisRecords;
  queue: ProducerQueue;
  now: () => number;
}

export function producerQueueFor(ctx: Pick<ServiceContext, 'config' | 'log' | 'producer'>, replaceRefused?: ProducerQueueOptions['replaceRefused']): ProducerQueue {
  return new ProducerQueue({
    send: (records) => ctx.producer.send(records),
    maxBatchRecords: ctx.config.ingestBatchRecords,
    lingerMs: ctx.config.ingestLingerMs,
    maxInFlight: ctx.config.ingestMaxInFlight,
    maxQueuedRecords: ctx.config.ingestMaxQueuedRecords,
    log: ctx.log.child({ component: 'ingest-queue' }),
    ...(replaceRefused ? { replaceRefused } : {}),
  });
}

export type RuntimeContext = Pick<ServiceContext, 'config' | 'log' | 'producer' | 'topics'>;

export async function createIngestRuntime(ctx: RuntimeContext): Promise<IngestRuntime> {
  const encoder = ctx.config.schemaRegistryUrl === '' ? jsonEncoder : await registryEncoder(ctx.config.schemaRegistryUrl, ctx.topics);
  // A record Kafka refuses for good is replaced by its (bounded) dead letter, never retried forever.
  const queue = producerQueueFor(ctx, (record, code) => refusedRecordLetter(record, code, ctx.topics, encoder, Date.now()));
  return { config: ctx.config, topics: ctx.topics, encoder, records: new AisRecords(ctx.topics, encoder), queue, now: Date.now };
}

const runtimes = new WeakMap<RuntimeContext, Promise<IngestRuntime>>();

/** The runtime of `ctx` if one was started (by the ingest role or an HTTP ingest request), without starting one. */
export function startedIngestRuntime(ctx: RuntimeContext): Promise<IngestRuntime> | undefined {
  return runtimes.get(ctx);
}

export function ingestRuntime(ctx: RuntimeContext): Promise<IngestRuntime> {
  let runtime = runtimes.get(ctx);
  if (runtime === undefined) {
    runtime = createIngestRuntime(ctx);
    // A failed start (e.g. the registry is down) is retried by the next caller instead of being cached.
    runtime.catch(() => runtimes.delete(ctx));
    runtimes.set(ctx, runtime);
  }
  return runtime;
}
