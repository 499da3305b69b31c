// The sources under stress, against the real broker: the real KafkaProducer (platform/kafka/) on fresh
// topics, wrapped only to inject faults (a delay before each send, or a stall until the test releases it).
// A slow producer pauses the TCP source and memory stays bounded; garbage never crashes anything; UDP
// drops (and counts) while the producer is behind.
import dgram from 'node:dgram';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AisRecords } from '../../../../ingest/ais-records.ts';
import { AisChannel } from '../../../../ingest/ais-channel.ts';
import { ingestMetrics } from '../../../../ingest/metrics.ts';
import { ProducerQueue } from '../../../../ingest/producer-queue.ts';
import { TcpSource } from '../../../../ingest/sources/tcp.ts';
import { UdpSource } from '../../../../ingest/sources/udp.ts';
import { compileSchema } from '../../../../ingest/validation.ts';
import type { OutRecord } from '../../../../platform/kafka/index.ts';
import { nonVesselReportSchema, vesselPositionSchema, vesselStaticSchema } from '../../../../schemas/ais.ts';
import { deadLetterSchema } from '../../../../schemas/dead-letter.ts';
import { allAisFixtures, feedServer, ingestHarness, readTopic, until, type IngestHarness } from '../../../support/ingest.ts';
import { testLog } from '../../../support/stack.ts';
import { jsonCodec, valueOf } from '../../../support/codec.ts';

const POSITION = '!AIVDM,1,1,,B,13A><b0P010qaGPOo2Gcl?w208C?,0*04';
let harness: IngestHarness;
const topics = () => harness.topics;
beforeAll(async () => {
  harness = await ingestHarness();
});
afterAll(async () => {
  await harness?.close();
});
const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

interface Faults {
  /** Added before every send: a slow Kafka. */
  delayMs?: number;
  /** Sends wait for this promise first: a stalled Kafka until the test releases it. */
  stall?: Promise<void>;
}

/**
 * An queue and a channel in front of the real producer. Faults are injected before the real send; the
 * records Kafka acknowledged are collected in `delivered` (observed, not replaced).
 */
function pipeline({ delayMs = 0, stall }: Faults = {}, maxQueuedRecords = 1_000, maxBatchRecords = 200) {
  const delivered: OutRecord[] = [];
  const send = async (records: OutRecord[]) => {
    if (delayMs > 0) await sleep(delayMs);
    if (stall) await stall;
    await harness.producer.send(records);
    delivered.push(...records);
  };
  const queue = new ProducerQueue({ send, maxBatchRecords, lingerMs: 2, maxInFlight: 1, maxQueuedRecords, log: testLog });
  const channel = new AisChannel({ source: 'stress', kind: 'tcp', queue, records: new AisRecords(topics(), jsonCodec), strictTagBlocks: true, fragmentTimeoutMs: 200 });
  stops.push(async () => {
    // Whatever a test left queued reaches the broker before the next test (or harness.close) begins;
    // a test that failed with its producer stalled must not hang the hook.
    await Promise.race([queue.flush(), sleep(30_000)]);
    queue.abort();
  });
  return { queue, channel, delivered };
}

async function tcp(channel: AisChannel, text: string, options: Parameters<typeof feedServer>[1] = {}) {
  const server = await feedServer(text, options);
  const source = new TcpSource({ endpoint: { name: 'stress', host: '127.0.0.1', port: server.port }, channel, backoff: { minMs: 20, maxMs: 50 }, idleTimeoutMs: 0, log: testLog });
  source.start();
  stops.push(() => server.close(), () => source.stop());
  return server;
}

describe('back-pressure', () => {
  it('a slow producer pauses the TCP source: the sender has to wait and queued records stay bounded', async () => {
    const { queue, channel, delivered } = pipeline({ delayMs: 10 }, 1_000, 500);
    // Far more than the kernel's socket buffers hold, so the sender feels the pause.
    const text = Array(16).fill(allAisFixtures()).join('\n');
    let maxQueued = 0;
    let paused = false;
    const server = await tcp(channel, text, { chunkMax: 65_536 });
    const heapBefore = process.memoryUsage().heapUsed;
    let maxHeap = heapBefore;
    await until(() => {
      maxQueued = Math.max(maxQueued, queue.queued);
      maxHeap = Math.max(maxHeap, process.memoryUsage().heapUsed);
      paused ||= channel.waiting;
      return server.connections >= 2;
    }, 120_000, 'the feed to be read');
    await until(() => channel.pendingFragments === 0, 5_000, 'fragments to expire');
    await queue.flush();
    expect(paused).toBe(true);
    expect(server.waits).toBeGreaterThan(0);
    // At most the high-water mark plus what one 64 KiB chunk decodes into.
    expect(maxQueued).toBeLessThan(1_000 + 1_500);
    expect(maxHeap - heapBefore).toBeLessThan(200 * 1024 * 1024);
    const reports = delivered.filter((r) => r.topic !== topics().deadLetter).length;
    expect(reports).toBeGreaterThan(16 * 7_000);
    // What the producer acknowledged is on the broker, once each.
    const positions = delivered.filter((r) => r.topic === topics().aisPositions).length;
    expect((await readTopic(topics().aisPositions, positions, { quietMs: 2_000, timeoutMs: 120_000 })).length).toBe(positions);
  }, 300_000);
});

describe('garbage input', () => {
  const validators = [vesselPositionSchema, vesselStaticSchema, nonVesselReportSchema].map((s) => compileSchema(s));
  const validLetter = compileSchema(deadLetterSchema);

  function garbage(seed: number, bytes: number): Buffer {
    let s = seed;
    const next = () => (s = (s * 48271) % 2147483647) / 2147483647;
    const lines = allAisFixtures().split('\n');
    const parts: Buffer[] = [];
    let size = 0;
    while (size < bytes) {
      const pick = next();
      let part: Buffer;
      if (pick < 0.4) part = Buffer.from(Array.from({ length: 1 + Math.floor(next() * 200) }, () => Math.floor(next() * 256)));
      else if (pick < 0.7) {
        const line = lines[Math.floor(next() * lines.length)] ?? '';
        part = Buffer.from(`${line.slice(0, Math.floor(next() * line.length))}\n`, 'latin1');
      } else if (pick < 0.8) part = Buffer.from(`${'!\\$,*'.repeat(Math.floor(next() * 50))}\r`);
      else part = Buffer.from(`${lines[Math.floor(next() * lines.length)] ?? ''}\r\n`, 'latin1');
      parts.push(part);
      size += part.length;
    }
    return Buffer.concat(parts);
  }

  it('random bytes and truncated sentences over TCP never crash the ingest; every output is well-formed', async () => {
    const { queue, channel, delivered } = pipeline();
    const text = `${garbage(7, 2_000_000).toString('latin1')}\n${POSITION}\n`;
    const server = await tcp(channel, text, { chunkMax: 777 });
    await until(() => server.connections >= 2, 60_000, 'the feed to be read');
    await queue.flush();
    expect(delivered.length).toBeGreaterThan(1_000);
    for (const record of delivered) {
      const value = valueOf(record);
      if (record.topic === topics().deadLetter) expect(validLetter(value), JSON.stringify(value)).toBe(true);
      else expect(validators.some((v) => v(value)), JSON.stringify(value)).toBe(true);
    }
    // After all that, a clean sentence still decodes.
    expect(delivered.some((r) => String(r.value).includes(POSITION) && r.topic === topics().aisPositions)).toBe(true);
  }, 120_000);

  it('garbage datagrams over UDP never crash the listener', async () => {
    const { queue, channel, delivered } = pipeline({}, 1_000_000);
    const source = new UdpSource({ endpoint: { name: 'udp-fuzz', host: '127.0.0.1', port: 0 }, channel, queue, log: testLog });
    await source.start();
    stops.push(() => source.stop());
    const client = dgram.createSocket('udp4');
    const junk = garbage(11, 200_000);
    for (let at = 0; at < junk.length; at += 1_000) {
      await new Promise<void>((resolve) => client.send(junk.subarray(at, at + 1_000), source.port, '127.0.0.1', () => resolve()));
      await new Promise((r) => setImmediate(r));
    }
    await new Promise<void>((resolve) => client.send(Buffer.from(`${POSITION}\r\n`), source.port, '127.0.0.1', () => resolve()));
    client.close();
    await until(() => delivered.some((r) => String(r.value).includes(POSITION) && r.topic === topics().aisPositions), 10_000, 'the clean datagram');
    await queue.flush();
    expect(delivered.filter((r) => r.topic === topics().deadLetter).length).toBeGreaterThan(10);
  });
});

describe('the UDP source', () => {
  it('decodes each datagram on its own and drops (counting) datagrams while the producer is behind', async () => {
    let release!: () => void;
    const stall = new Promise<void>((r) => (release = r));
    const { queue, channel, delivered } = pipeline({ stall }, 100);
    const source = new UdpSource({ endpoint: { name: 'udp-test', host: '127.0.0.1', port: 0 }, channel, queue, log: testLog });
    await source.start();
    stops.push(() => source.stop());
    const droppedBefore = (await ingestMetrics.dropped.get()).values.find((v) => v.labels.source === 'udp-test')?.value ?? 0;
    const client = dgram.createSocket('udp4');
    const send = (text: string) => new Promise<void>((resolve) => client.send(Buffer.from(text), source.port, '127.0.0.1', () => resolve()));
    // 150 positions fill the queue past its high-water mark of 100; then datagrams are dropped.
    await send(Array(150).fill(POSITION).join('\r\n'));
    await until(() => !queue.writable, 5_000, 'the queue to fill');
    await send(POSITION);
    await new Promise((r) => setTimeout(r, 100));
    const dropped = ((await ingestMetrics.dropped.get()).values.find((v) => v.labels.source === 'udp-test')?.value ?? 0) - droppedBefore;
    expect(dropped).toBe(1);
    release();
    await queue.flush();
    expect(delivered.filter((r) => r.topic === topics().aisPositions)).toHaveLength(150);
    client.close();
  });
});

describe('the TCP source', () => {
  it('keeps retrying while the receiver is down, connects when it comes up, and reconnects a silent connection', async () => {
    const { channel } = pipeline();
    const probe = await feedServer('');
    const port = probe.port;
    await probe.close();
    const source = new TcpSource({ endpoint: { name: 'flaky', host: '127.0.0.1', port }, channel, backoff: { minMs: 20, maxMs: 100 }, idleTimeoutMs: 300, log: testLog });
    source.start();
    stops.push(() => source.stop());
    await new Promise((r) => setTimeout(r, 300));
    expect(source.connected).toBe(false);
    let accepted = 0;
    const silent = net.createServer((socket) => {
      accepted++;
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(port, '127.0.0.1', resolve));
    stops.push(() => new Promise((resolve) => silent.close(() => resolve())));
    await until(() => source.connected, 5_000, 'the source to connect');
    // Silent for longer than the idle timeout: dropped and dialled again.
    await until(() => accepted >= 2, 5_000, 'a reconnect after the idle timeout');
  });
});
