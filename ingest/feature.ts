// The ingest feature: the HTTP ingest routes, and the ingest role's sources (every configured TCP and
// UDP source, plus the raw-topic consumers), all feeding one outbox in front of the Kafka producer.
import type { Feature } from '../cli/service.ts';
import type { RunningRole, ServiceContext } from '../platform/context.ts';
import { AisChannel } from './ais-channel.ts';
import { ingestRoutes } from './http/routes.ts';
import { ingestRuntime, type IngestRuntime } from './runtime.ts';
import { startAisRawConsumer, startGateRawConsumer } from './sources/raw-topics.ts';
import { TcpSource } from './sources/tcp.ts';
import { UdpSource } from './sources/udp.ts';

export const ingestFeature: Feature = {
  name: 'ingest',
  routes: ingestRoutes,
  ingest: startIngest,
};

export function channelFor(rt: IngestRuntime, source: string, kind: string): AisChannel {
  return new AisChannel({ source, kind, outbox: rt.outbox, records: rt.records, strictTagBlocks: rt.config.aisStrictTagBlocks, fragmentTimeoutMs: rt.config.aisFragmentTimeoutMs, now: rt.now });
}

async function startIngest(ctx: ServiceContext): Promise<RunningRole> {
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
    const source = new UdpSource({ endpoint, channel, outbox: rt.outbox, log: ctx.log });
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
      await rt.outbox.flush();
    },
  };
}
