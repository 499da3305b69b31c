// The ingest role: every configured TCP and UDP source, plus the raw-topic consumers, all feeding one
// producer queue in front of the Kafka producer (HTTP ingest, in api/ingest/, feeds the same queue).
import type { RunningRole, ServiceContext } from '../platform/context.ts';
import type { ReadinessCheck } from '../platform/readiness.ts';
import { AisChannel } from './ais-channel.ts';
import { aisSettings } from './ais-settings.ts';
import { ingestRuntime, startedIngestRuntime, type IngestRuntime } from './runtime.ts';
import { startAisRawConsumer, startGateRawConsumer } from './sources/raw-topics.ts';
import { TcpSource } from './sources/tcp.ts';
import { UdpSource } from './sources/udp.ts';

export function channelFor(rt: IngestRuntime, source: string, kind: string, lineTime?: () => number): AisChannel {
  return new AisChannel({ source, kind, queue: rt.queue, records: rt.records, ...aisSettings(rt.config), now: rt.now, ...(lineTime ? { lineTime } : {}) });
}

export async function startIngest(ctx: ServiceContext): Promise<RunningRole> {
  const rt = ingestRuntime(ctx);
  const { config } = ctx;
  const parts: RunningRole[] = [];
  for (const endpoint of config.aisTcpSources) {
    const channel = channelFor(rt, endpoint.name, 'tcp');
    const source = new TcpSource({ endpoint, channel, backoff: { minMs: config.aisTcpReconnectMinMs, maxMs: config.aisTcpReconnectMaxMs }, idleTimeoutMs: config.aisTcpIdleTimeoutMs, log: ctx.log });
    source.start();
    parts.push({ name: endpoint.name, stop: () => source.stop().finally(() => channel.destroy()) });
  }
  for (const endpoint of config.aisUdpSources) {
    const channel = channelFor(rt, endpoint.name, 'udp');
    const source = new UdpSource({ endpoint, channel, queue: rt.queue, log: ctx.log });
    await source.start();
    parts.push({ name: endpoint.name, stop: () => source.stop().finally(() => channel.destroy()) });
  }
  if (config.ingestRawConsumers) {
    parts.push(await startAisRawConsumer(ctx, rt));
    parts.push(await startGateRawConsumer(ctx, rt));
  }
  ctx.log.info({ tcp: config.aisTcpSources.map((e) => e.name), udp: config.aisUdpSources.map((e) => e.name), raw_consumers: config.ingestRawConsumers }, 'ingest started');
  return {
    name: 'ingest',
    stop: async (deadline = Date.now() + config.shutdownTimeoutMs) => {
      // Armed first: a source that waits for acknowledgements while it stops (the raw consumers) stops
      // waiting at the deadline, its input uncommitted, instead of holding the shutdown past it.
      rt.queue.giveUpAt(deadline);
      for (const part of parts) {
        await part.stop(deadline).catch((err: unknown) => ctx.log.warn({ err, part: part.name }, 'ingest source did not stop cleanly'));
      }
      // What the sources read is acknowledged before the producer closes, or given up (logged, counted) at the deadline.
      await rt.queue.close();
    },
  };
}

/**
 * /readyz check `ingest_producer`: fails while the ingest producer's oldest unacknowledged batch has waited
 * longer than PSS_INGEST_STUCK_AFTER_MS (Kafka unreachable, or every send failing), so an instance that
 * takes input but cannot deliver it is taken out of rotation. Passes while no ingest runs on this instance.
 */
export function ingestProducerCheck(ctx: ServiceContext): ReadinessCheck {
  return async () => {
    const rt = startedIngestRuntime(ctx);
    if (rt === undefined) return;
    const stalledMs = rt.queue.stalledMs;
    if (stalledMs > ctx.config.ingestStuckAfterMs) {
      throw new Error(`stuck: the oldest unacknowledged batch has waited ${Math.round(stalledMs / 1000)} s (limit ${ctx.config.ingestStuckAfterMs / 1000} s); ${rt.queue.queued} records queued`);
    }
  };
}

/** Shutdown of whatever used the ingest producer (HTTP ingest too): deliver what it holds, giving up at `deadline`. */
export async function closeIngestProducer(ctx: ServiceContext, deadline: number): Promise<void> {
  const rt = startedIngestRuntime(ctx);
  if (rt === undefined) return;
  rt.queue.giveUpAt(deadline);
  await rt.queue.close();
}
