// The outside observers of bench/pipeline.ts, each timing a stage as a client of the service sees it:
// a reader of one partition of ais.positions (a sixth of the positions, chosen by MMSI hash), a consumer
// group on security.events, a WebSocket stream client (the spec's protocol, no filters) and a registered
// webhook's receiver. Each hands what it sees, with the moment it saw it, to the current step; the two
// Kafka readers also hand on each record's timestamp, the moment its producer (ingest, the relay) sent it.
import { WebSocket } from 'ws';
import type { TopicCodec } from '../../platform/codec/index.ts';
import { KafkaConsumer, KafkaPartitionReader, type KafkaOptions } from '../../platform/kafka/index.ts';
import type { TopicId } from '../../platform/topics.ts';
import { startSignedReceiver, type SignatureTally } from './signed-receiver.ts';
import type { SeenEvent, Stage, StepSamples } from './pipeline-stages.ts';

export interface Observers {
  webhookUrl: string;
  stop(): Promise<void>;
}

export interface ObserverSetup {
  kafka: KafkaOptions;
  topics: Record<TopicId, string>;
  codec: TopicCodec;
  prefix: string;
  apiUrl: string;
  apiKey: string;
  webhookSecret: string;
  signatures: SignatureTally;
  /** The step being measured, if any. */
  current: () => StepSamples | undefined;
}

const SAMPLED_PARTITION = 0;

export async function startObservers(setup: ObserverSetup): Promise<Observers> {
  const seen = (stage: Stage, e: SeenEvent) => setup.current()?.event(stage, e, Date.now());
  const positions = await samplePositions(setup);
  const events = new KafkaConsumer(setup.kafka, { groupId: `${setup.prefix}bench-events`, topics: [setup.topics.securityEvents], startAt: 'latest', lingerMs: 0 });
  await events.run(async (records) => {
    const now = Date.now();
    const { values } = await setup.codec.decode('securityEvents', records);
    for (const { record, value } of values) {
      setup.current()?.event('relay sent', value, record.timestamp);
      setup.current()?.event('security.events', value, now);
    }
  });
  const ws = await streamClient(setup.apiUrl, setup.apiKey, (e) => seen('WebSocket client', e));
  const receiver = await startSignedReceiver(setup.webhookSecret, setup.signatures, (body) => {
    if (body.attempt === 1) seen('webhook', body.event);
  });
  return {
    webhookUrl: `${receiver.url}/pss`,
    stop: async () => {
      ws.close();
      receiver.close();
      await events.stop();
      await positions.stop();
    },
  };
}

/** Reads one partition of ais.positions from its end, timing each position by its `reported_at` (the send time). */
async function samplePositions(setup: ObserverSetup): Promise<{ stop(): Promise<void> }> {
  const reader = new KafkaPartitionReader(setup.kafka, setup.topics.aisPositions, 'bench-positions');
  let next = (await reader.offsets('latest'))[SAMPLED_PARTITION] as bigint;
  let running = true;
  const loop = (async () => {
    while (running) {
      const records = await reader.fetch([next], { maxWaitMs: 100, maxBytes: 8 << 20 }).catch((err: unknown) => {
        process.stderr.write(`bench: ais.positions sample fetch failed, retrying: ${(err as Error).message}\n`);
        return new Promise<[]>((r) => setTimeout(() => r([]), 500));
      });
      const now = Date.now();
      for (const r of records) {
        next = r.offset + 1n;
        // Through the codec: the service writes binary frames or JSON (PSS_POSITION_FORMAT); only the time is needed.
        const { reported_at } = setup.codec.decodeValue('aisPositions', r.value);
        setup.current()?.position(Date.parse(reported_at), r.timestamp, now);
      }
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop.catch(() => undefined);
      await reader.close();
    },
  };
}

/** A plain `ws` client of the event stream, subscribed to everything. */
function streamClient(apiUrl: string, key: string, onEvent: (e: SeenEvent) => void): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${apiUrl.replace(/^http/, 'ws')}/v1/events/stream?token=${encodeURIComponent(key)}`, { perMessageDeflate: false });
    ws.on('message', (data: Buffer) => {
      const m = JSON.parse(String(data)) as { type: string; event_type?: string; id?: string; timestamp?: string; metadata?: SeenEvent['metadata'] };
      if (m.type === 'event') onEvent({ id: m.id as string, type: m.event_type as string, timestamp: m.timestamp as string, metadata: m.metadata });
      else if (m.type === 'authenticated') ws.send(JSON.stringify({ type: 'subscribe', filters: {} }));
      else if (m.type === 'subscribed') resolve(ws);
      else if (m.type === 'error') reject(new Error(`stream client: ${String(data)}`));
    });
    ws.on('close', (code, reason) => {
      if (code !== 1000 && code !== 1005) process.stderr.write(`bench: the stream client was closed: ${code} ${String(reason)}\n`);
    });
    ws.on('error', reject);
  });
}
