import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { authFeature, streamFeature } from '../../../../app/features.ts';
import { KafkaProducer } from '../../../../platform/kafka/index.ts';
import { registry } from '../../../../platform/metrics.ts';
import { ManualClock } from '../../../support/clock.ts';
import { startTestService, type TestService } from '../../../support/service.ts';
import { testKafka, unique } from '../../../support/stack.ts';
import { StreamClient, publish, streamEvent } from '../../../support/stream-client.ts';

// Issue 21 item 5: what one stream client with an events:read key can make the service hold or do. Each
// invalid subscribe used to be answered with every offending item (about 950 KB for 9,516), a client that
// did not read those answers was never cut (the limit counted messages, not bytes), and a client sending
// many small frames at once was cut as a "slow consumer" although it read everything. The service's clock is
// a ManualClock: the inbound rate's bucket refills only when the test says.
describe('the limits of one stream client', () => {
  const clock = new ManualClock();
  const producer = new KafkaProducer(testKafka('stream-limits'));
  const run = unique('limits');
  let service: TestService;
  let topic: string;
  let key: string;
  let n = 0;
  const clients: StreamClient[] = [];

  beforeAll(async () => {
    service = await startTestService({ PSS_TOPIC_PREFIX: `${unique('limits')}.` }, [authFeature, streamFeature({ clock })]);
    topic = service.context.topics.securityEvents;
  });
  beforeEach(async () => {
    key = (await service.key(['events:read'])).key;
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await service?.stop();
    await producer.close();
  });

  async function connect(): Promise<StreamClient> {
    const client = await StreamClient.authenticated(service.url, key);
    clients.push(client);
    return client;
  }

  it('answers a subscribe whose categories hold 9,516 invalid strings with one short invalid_filter, checked before the items', async () => {
    const client = await connect();
    const categories = Array.from({ length: 9_516 }, (_, i) => i.toString(36));
    const subscribe = JSON.stringify({ type: 'subscribe', filters: { categories } });
    expect(subscribe.length).toBeLessThan(64 * 1024);
    for (let i = 0; i < 20; i++) client.send(subscribe);
    for (let i = 0; i < 20; i++) {
      const error = await client.next((m) => m.type === 'error');
      expect(error).toEqual({ type: 'error', code: 'invalid_filter', message: 'filters.categories has 9516 items; at most 50' });
    }
    const answered = client.messages.filter((m) => m.type === 'error');
    expect(Math.max(...answered.map((m) => JSON.stringify(m).length))).toBeLessThan(200);
    // Fifty invalid values, the most a list may hold: ten are named, the rest counted.
    client.send({ type: 'subscribe', filters: { categories: categories.slice(0, 50) } });
    const listed = await client.next((m) => m.type === 'error');
    expect(listed.message).toMatch(/^unknown category "0"; valid categories are .*; and 40 more$/);
    expect(JSON.stringify(listed).length).toBeLessThan(2_000);
    await client.subscribe({ categories: ['maritime'] });
  });

  it('closes a client that sends 10,000 small frames at once with 1008 (too many messages), not as a slow consumer', async () => {
    const client = await connect();
    const frame = JSON.stringify({ type: 'dance' });
    for (let i = 0; i < 10_000; i++) client.ws.send(frame);
    const { code, reason } = await client.closed;
    expect(code).toBe(1008);
    expect(reason).toBe('more than 100 messages at once or 10 a second');
    // Answers still queued when the limit was passed are not sent; the last word is why the client was closed.
    expect(client.messages.filter((m) => m.code === 'invalid_message').length).toBeLessThanOrEqual(100);
    expect(client.messages.at(-1)).toMatchObject({ type: 'error', code: 'too_many_messages' });
    expect(await registry.getSingleMetricAsString('pss_stream_drops_total')).toMatch(/reason="message_rate"} 1\b/);
  });

  it('lets the bucket refill: a client sending at its steady rate is never closed', async () => {
    const client = await connect();
    for (let second = 0; second < 30; second++) {
      for (let i = 0; i < 10; i++) client.send({ type: 'dance' });
      for (let i = 0; i < 10; i++) await client.next((m) => m.type === 'error' && m.code === 'invalid_message');
      clock.advance(1_000);
    }
    await client.subscribe({});
    expect(client.messages.filter((m) => m.code === 'invalid_message')).toHaveLength(300);
    expect(client.ws.readyState).toBe(client.ws.OPEN);
  });

  it('cuts off a client that stops reading once 8 MiB wait for it, though they are fewer than 1,000 messages', async () => {
    const filters = { source_modules: ['bulky'] };
    const slow = await connect();
    const { resume } = await slow.subscribe(filters);
    expect(resume).toEqual(expect.any(String));
    // The client stops reading: what the server sends fills the kernel's buffers (a few MiB), then the
    // socket's and the connection's queue.
    slow.ws.pause();
    const bulky = Array.from({ length: 400 }, () => streamEvent(run, n++, { source_module: 'bulky', description: 'x'.repeat(60_000) }));
    for (let i = 0; i < bulky.length; i += 10) await publish(producer, topic, bulky.slice(i, i + 10));
    await expect.poll(() => registry.getSingleMetricAsString('pss_stream_drops_total'), { timeout: 30_000 }).toMatch(/reason="slow_consumer"} [1-9]/);
    slow.ws.resume();
    const { code, reason } = await slow.closed;
    expect(code).toBe(4413);
    expect(reason).toMatch(/^slow consumer: more than 8 MiB waiting resume=[A-Za-z0-9_-]+$/);
    expect(slow.events().length).toBeLessThan(bulky.length);
    expect(reason.split('resume=')[1]).toBe(slow.lastHandle());
  }, 90_000);
});
