// How an HTTP ingest request hands its records to the shared queue: it waits for room for all of them,
// so many concurrent requests cannot push the queue past its limit, and it answers 503 (taking nothing)
// when the ingest stays behind past the ack timeout.
import { describe, expect, it } from 'vitest';
import { produce } from '../../../../ingest/items/produce.ts';
import { ProducerQueue } from '../../../../ingest/producer-queue.ts';
import type { Config } from '../../../../platform/config.ts';
import type { OutRecord } from '../../../../platform/kafka/index.ts';
import { createLogger } from '../../../../platform/log.ts';

const log = createLogger('silent');
const records = (n: number): OutRecord[] => Array.from({ length: n }, (_, i) => ({ topic: 't', key: String(i), value: String(i) }));
const config = (ackTimeoutMs: number) => ({ ingestHttpAckTimeoutMs: ackTimeoutMs }) as Config;
const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

describe('HTTP ingest hand-over to the queue', () => {
  it('keeps the queue within its limit when many requests wait for the same drain', async () => {
    let peak = 0;
    let delivered = 0;
    const queue: ProducerQueue = new ProducerQueue({
      // A slow Kafka: every batch takes a few ms to be acknowledged.
      send: async (recs) => {
        peak = Math.max(peak, queue.queued);
        await tick(2);
        delivered += recs.length;
      },
      maxBatchRecords: 100,
      lingerMs: 1,
      maxInFlight: 1,
      maxQueuedRecords: 1_000,
      log,
    });
    // The ingest is behind: the queue is at its high-water mark, so every request has to wait.
    void queue.add(records(1_000));
    expect(queue.writable).toBe(false);
    const requests = Array.from({ length: 50 }, () => produce({ config: config(30_000), queue }, records(100)));
    await Promise.all(requests);
    expect(delivered).toBe(1_000 + 50 * 100);
    // Before the fix one 'drain' let all 50 requests in at once: 5,000+ records queued.
    expect(peak).toBeLessThanOrEqual(1_000);
  });

  it('answers 503 and takes nothing when the ingest stays behind past the ack timeout', async () => {
    const queue = new ProducerQueue({ send: () => new Promise(() => undefined), maxBatchRecords: 100, lingerMs: 0, maxInFlight: 1, maxQueuedRecords: 100, log });
    void queue.add(records(100));
    await expect(produce({ config: config(50), queue }, records(10))).rejects.toMatchObject({ code: 'service_unavailable', message: expect.stringMatching(/took nothing/) });
    expect(queue.queued).toBe(100);
    queue.abort();
  });

  it('answers 503 when Kafka does not acknowledge in time after the records were taken', async () => {
    const queue = new ProducerQueue({ send: () => new Promise(() => undefined), maxBatchRecords: 100, lingerMs: 0, maxInFlight: 1, maxQueuedRecords: 1_000, log });
    await expect(produce({ config: config(50), queue }, records(10))).rejects.toMatchObject({ code: 'service_unavailable', message: expect.stringMatching(/did not acknowledge/) });
    expect(queue.queued).toBe(10);
    queue.abort();
  });
});

// Issue 33, item 3: with two of three brokers down nothing can be written, yet every request was held to the
// 15 s ack timeout before its 503. A stalled queue (oldest batch unacknowledged past PSS_INGEST_STUCK_AFTER_MS)
// now answers at once, and a request already waiting is answered when the stall is seen.
describe('HTTP ingest while no write gets through', () => {
  const stuckConfig = { ingestHttpAckTimeoutMs: 60_000, ingestStuckAfterMs: 5_000 } as Config;

  it('answers 503 at once and takes nothing while the queue is stalled', async () => {
    let clock = 0;
    const queue = new ProducerQueue({ send: () => new Promise(() => undefined), maxBatchRecords: 100, lingerMs: 0, maxInFlight: 1, maxQueuedRecords: 1_000, log, now: () => clock });
    void queue.add(records(10));
    await tick(5);
    clock = 6_000;
    await expect(produce({ config: stuckConfig, queue }, records(10))).rejects.toMatchObject({ code: 'service_unavailable', message: expect.stringMatching(/not taken/) });
    expect(queue.queued).toBe(10);
    queue.abort();
  });

  it('answers a request already waiting as soon as the queue is seen stalled, long before the ack timeout', async () => {
    let clock = 0;
    const queue = new ProducerQueue({ send: () => new Promise(() => undefined), maxBatchRecords: 100, lingerMs: 0, maxInFlight: 1, maxQueuedRecords: 1_000, log, now: () => clock });
    const waiting = produce({ config: stuckConfig, queue }, records(10));
    let answered = false;
    waiting.catch(() => undefined).finally(() => (answered = true));
    await tick(600);
    expect(answered).toBe(false);
    clock = 6_000;
    await expect(waiting).rejects.toMatchObject({ code: 'service_unavailable', message: expect.stringMatching(/no write is getting through/) });
    queue.abort();
  });
});
