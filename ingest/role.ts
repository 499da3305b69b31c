// The ingest role: every configured TCP and UDP source, plus the raw-topic consumers, all feeding one
// producer queue in front of the Kafka producer (HTTP ingest, in api/ingest/, feeds the same queue).
import type { RunningRole, ServiceContext } from '../platform/context.ts';
import { AisChannel } from './ais-channel.ts';
import { ingestRuntime, type IngestRuntime } from './runtime.ts';
import { startAisRawConsumer, startGateRawConsumer } from './sources/raw-topics.ts';
import { TcpSource } from './sources/tcp.ts';
import { UdpSource } from './sources/udp.ts';

export function channelFor(rt: IngestRuntime, source: string, kind: string, lineTime?: () => number): AisChannel {
  return new AisChannel({ source, kind, queue: rt.queue, records: rt.records, strictTagBlocks: rt.config.aisStrictTagBlocks, fragmentTimeoutMs: rt.config.aisFragmentTimeoutMs, now: rt.now, ...(lineTime ? { lineTime } : {}) });
}

export async function startIngest(ctx: ServiceContext): Promise<RunningRole> {
  const rt = await ingestRuntime(ctx);
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
    stop: async () => {
      for (const part of parts) {
        await part.stop().catch((err: unknown) => ctx.log.warn({ err, part: part.name }, 'ingest source did not stop cleanly'));
      }
      // What the sources read is acknowledged before the producer closes.
      await rt.queue.flush();
    },
  };
}
