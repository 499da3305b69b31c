// What every ingest path of one service instance shares: the value encoder (JSON or schema registry),
// the record mapping, and one queue in front of the shared Kafka producer, so that every source's
// back-pressure reflects the same producer queue. Built once per ServiceContext, on first use (by the
// ingest role or the first HTTP ingest request, whichever comes first).
import type { Config } from '../platform/config.ts';
import type { ServiceContext } from '../platform/context.ts';
import type { TopicId } from '../platform/topics.ts';
import { AisRecords } from './ais-records.ts';
import { jsonEncoder, type ValueEncoder } from './encoding.ts';
import { ProducerQueue } from './producer-queue.ts';
import { registryEncoder } from './schema-registry.ts';
import { sendStaticFirst } from './static-first.ts';

export interface IngestRuntime {
  config: Config;
  topics: Record<TopicId, string>;
  encoder: ValueEncoder;
  records: AisRecords;
  queue: ProducerQueue;
  now: () => number;
}

export function producerQueueFor(ctx: Pick<ServiceContext, 'config' | 'log' | 'producer' | 'topics'>): ProducerQueue {
  return new ProducerQueue({
    send: (records) => sendStaticFirst((group) => ctx.producer.send(group), records, ctx.topics.aisStatic),
    maxBatchRecords: ctx.config.ingestBatchRecords,
    lingerMs: ctx.config.ingestLingerMs,
    maxInFlight: ctx.config.ingestMaxInFlight,
    maxQueuedRecords: ctx.config.ingestMaxQueuedRecords,
    log: ctx.log.child({ component: 'ingest-queue' }),
  });
}

export type RuntimeContext = Pick<ServiceContext, 'config' | 'log' | 'producer' | 'topics'>;

export async function createIngestRuntime(ctx: RuntimeContext): Promise<IngestRuntime> {
  const encoder = ctx.config.schemaRegistryUrl === '' ? jsonEncoder : await registryEncoder(ctx.config.schemaRegistryUrl, ctx.topics);
  return { config: ctx.config, topics: ctx.topics, encoder, records: new AisRecords(ctx.topics, encoder), queue: producerQueueFor(ctx), now: Date.now };
}

const runtimes = new WeakMap<RuntimeContext, Promise<IngestRuntime>>();

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
