import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { authFeature, streamFeature } from '../../../../app/features.ts';
import { eventRecord } from '../../../../events/event-record.ts';
import { encodeHandle, decodeHandle, topicTag } from '../../../../delivery/stream/resume-handle.ts';
import { KafkaProducer } from '../../../../platform/kafka/index.ts';
import { registry } from '../../../../platform/metrics.ts';
import type { SecurityEvent } from '../../../../schemas/event.ts';
import { jsonCodec } from '../../../support/codec.ts';
import { startTestService, type TestService } from '../../../support/service.ts';
import { testKafka, unique } from '../../../support/stack.ts';
import { StreamClient, publish, streamEvent, type Message } from '../../../support/stream-client.ts';

// Issue 10 item 4, "nothing lost across a short disconnect, on any instance": a client reconnects to another
// API instance with its resume handle and gets what it missed, once, in order; a longer gap is named; a
// slow client is warned, cut off with its handle, and resumes. B keeps recent records in memory; C keeps
// none (PSS_STREAM_REPLAY_RECORDS=0), so it reads every missed range from Kafka by offset.
describe('resuming the stream', () => {
  const prefix = `${unique('resume')}.`;
  const producer = new KafkaProducer(testKafka('stream-resume'));
  const run = unique('resume');
  let n = 0;
  let a: TestService;
  let b: TestService;
  let c: TestService;
  let key: string;
  let topic: string;
  const clients: StreamClient[] = [];

  beforeAll(async () => {
    a = await startTestService({ PSS_TOPIC_PREFIX: prefix }, [authFeature, streamFeature()]);
    b = await startTestService({ PSS_TOPIC_PREFIX: prefix }, [authFeature, streamFeature()]);
    c = await startTestService({ PSS_TOPIC_PREFIX: prefix, PSS_STREAM_REPLAY_RECORDS: '0' }, [authFeature, streamFeature()]);
    topic = a.context.topics.securityEvents;
  });
  // A key per test: each stays well inside the limit of 10 connections.
  beforeEach(async () => {
    key = (await a.key(['events:read'])).key;
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await Promise.all([a, b, c].map((s) => s?.stop()));
    await producer.close();
  });

  async function client(url: string, filters: Message, resume?: string): Promise<StreamClient> {
    const stream = await StreamClient.authenticated(url, key);
    clients.push(stream);
    await stream.subscribe(filters, resume);
    return stream;
  }
  const instances = () => ({ b, c });
  const categories = ['maritime', 'gate', 'drone'] as const;
  const mixed = (i: number): SecurityEvent => {
    const category = categories[i % 3] as (typeof categories)[number];
    const shape = { maritime: {}, gate: { type: 'seal_violation', category: 'gate', location: {} }, drone: { type: 'drone_lost_link', category: 'drone', source_module: 'drones' } }[category];
    return streamEvent(run, n++, shape as Partial<SecurityEvent>);
  };
  const ids = (messages: Message[]) => messages.map((m) => m.id as string);

  it.each([['b', 'memory'], ['c', 'kafka']] as const)('a client cut off from A mid-stream resumes on %s (from %s) without loss or duplicate', async (other, source) => {
    const filters = { categories: ['maritime', 'gate'] };
    const first = await client(a.url, filters);
    const published: SecurityEvent[] = [];
    let cut: Promise<void> | undefined;
    for (let round = 0; round < 40; round++) {
      const batch = Array.from({ length: 5 }, (_, i) => mixed(round * 5 + i));
      published.push(...batch);
      await publish(producer, topic, batch);
      if (round === 12) cut = (async () => first.ws.terminate())();
      await new Promise((r) => setTimeout(r, 25));
    }
    await cut;
    const handle = first.lastHandle() as string;
    const second = await client(instances()[other].url, filters, handle);
    const expected = published.filter((e) => e.category !== 'drone').map((e) => e.id);
    await second.eventsUntil(expected.length - first.events().length);
    const got = [...ids(first.events()), ...ids(second.events())];
    expect(first.events().length).toBeGreaterThan(0);
    expect(got).toHaveLength(expected.length);
    expect([...got].sort()).toEqual([...expected].sort());
    expect(await registry.getSingleMetricAsString('pss_stream_resumes_total')).toMatch(new RegExp(`outcome="complete",source="${source}"} [1-9]`));
  });

  it.each([['b'], ['c']] as const)('names the gap when more than 1000 matching events were missed, and replays the newest 1000 in order (%s)', async (other) => {
    const filters = { categories: ['drone'] };
    const first = await client(a.url, filters);
    const handle = first.lastHandle() as string;
    first.close();
    // Tells when the other instance has read everything published below.
    const witness = await client(instances()[other].url, filters);
    const base = Date.now();
    const missed = Array.from({ length: 1500 }, () => streamEvent(run, n++, { type: 'drone_lost_link', category: 'drone', source_module: 'drones' }));
    const noise = Array.from({ length: 200 }, (_, i) => mixed(3 * i));
    // Append times in publishing order, so "the newest 1000" is well defined across partitions.
    await producer.send([...missed, ...noise].map((e, i) => ({ ...eventRecord(jsonCodec, topic, e, 'created', 0), timestamp: base + i })));
    await witness.eventsUntil(1500, 30_000, 0);

    const second = await StreamClient.authenticated(instances()[other].url, key);
    clients.push(second);
    second.send({ type: 'subscribe', filters, resume: handle });
    const gap = await second.next((m) => m.type === 'gap');
    expect(gap).toMatchObject({ missed_events: 500, unscanned_records: 0, start_date: missed[0]!.timestamp, end_date: new Date(Date.parse(missed[499]!.timestamp) + 1).toISOString() });
    expect(gap.message).toMatch(/^500 events matching your filters were missed/);
    const query = new URL(gap.queries[0]);
    expect(gap.queries).toHaveLength(1);
    expect(query.pathname).toBe('/v1/events');
    expect(Object.fromEntries(query.searchParams)).toEqual({ category: 'drone', start_date: gap.start_date, end_date: gap.end_date, sort: 'timestamp', order: 'asc', per_page: '200' });
    const resumed = await second.next((m) => m.type === 'resumed');
    expect(resumed.replayed).toBe(1000);
    expect(ids(second.events())).toEqual(missed.slice(500).map((e) => e.id));
    // The live stream goes on behind the replay.
    const live = streamEvent(run, n++, { type: 'drone_lost_link', category: 'drone', source_module: 'drones' });
    await publish(producer, topic, [live]);
    expect((await second.eventsUntil(1001)).at(-1)?.id).toBe(live.id);
  });

  it('does not send again what a client resuming ahead of this instance already has', async () => {
    const tag = topicTag(topic);
    const witness = await client(a.url, {});
    const here = decodeHandle(witness.lastHandle() as string, tag, 6);
    if (!here.ok) throw new Error(here.reason);
    // A handle from an instance that had read three records further on every partition than A has.
    const floor = here.point.offsets.map((o) => o + 3);
    const resumed = await client(a.url, {}, encodeHandle({ offsets: floor, time: here.point.time }, tag));
    await publish(producer, topic, Array.from({ length: 60 }, (_, i) => mixed(i)));
    const all = placed(await witness.eventsUntil(60), here.point.offsets, tag);
    const expected = all.filter((r) => r.offset >= (floor[r.partition] as number));
    expect(expected.length).toBeLessThan(60);
    const got = await resumed.eventsUntil(expected.length);
    expect(ids(got)).toEqual(expected.map((r) => r.id));
    for (const m of got) {
      const at = decodeHandle(m.resume, tag, 6);
      if (!at.ok) throw new Error(at.reason);
      at.point.offsets.forEach((o, p) => expect(o).toBeGreaterThanOrEqual(floor[p] as number));
    }
  });

  it('refuses a resume handle it did not issue with invalid_resume, and stays open', async () => {
    const stream = await StreamClient.authenticated(a.url, key);
    clients.push(stream);
    stream.send({ type: 'subscribe', filters: {}, resume: encodeHandle({ offsets: [1, 2, 3, 4, 5, 6], time: 0 }, 1) });
    expect(await stream.next((m) => m.type === 'error')).toMatchObject({ code: 'invalid_resume', message: expect.stringMatching(/another deployment/) });
    stream.send({ type: 'subscribe', filters: {}, resume: encodeHandle({ offsets: [0, 0, 0, 0, 0, 1e9], time: 0 }, topicTag(topic)) });
    expect(await stream.next((m) => m.type === 'error')).toMatchObject({ code: 'invalid_resume', message: expect.stringMatching(/far ahead/) });
    await stream.subscribe({});
  });

  it('closes its clients with 1001 and their resume handles when an instance shuts down', async () => {
    const d = await startTestService({ PSS_TOPIC_PREFIX: prefix }, [authFeature, streamFeature()]);
    const stream = await StreamClient.authenticated(d.url, key);
    clients.push(stream);
    const { resume } = await stream.subscribe({});
    const stopped = d.stop();
    expect(await stream.closed).toEqual({ code: 1001, reason: `server shutting down; reconnect resume=${resume}` });
    await stopped;
  });

  it('warns a slow client, cuts it off with its resume handle, and resumes it without loss or duplicate', async () => {
    const filters = { source_modules: ['flood'] };
    const slow = await client(a.url, filters);
    // The client stops reading: what the server sends piles up in the kernel, then in its queue.
    slow.ws.pause();
    // 4 KB each, so the 1000 messages of the limit stay well below its 8 MiB.
    const flood = Array.from({ length: 3000 }, () => streamEvent(run, n++, { source_module: 'flood', description: 'x'.repeat(4_000) }));
    for (let i = 0; i < flood.length; i += 200) await publish(producer, topic, flood.slice(i, i + 200));
    await expect.poll(() => registry.getSingleMetricAsString('pss_stream_drops_total'), { timeout: 30_000 }).toMatch(/reason="slow_consumer"} [1-9]/);
    slow.ws.resume();
    const { code, reason } = await slow.closed;
    expect(code).toBe(4413);
    expect(reason).toMatch(/^slow consumer: more than 1000 messages waiting resume=[A-Za-z0-9_-]+$/);
    const warning = slow.messages.findIndex((m) => m.type === 'warning');
    expect(slow.messages[warning]).toMatchObject({ code: 'slow_consumer', limit: 1000 });
    // Written straight behind what the socket already held, so the client reads it before the close.
    expect(slow.events().length).toBeGreaterThan(0);

    const handle = reason.split('resume=')[1] as string;
    expect(handle).toBe(slow.lastHandle());
    const again = await StreamClient.authenticated(b.url, key);
    clients.push(again);
    again.send({ type: 'subscribe', filters, resume: handle });
    const resumed = await again.next((m) => m.type === 'resumed', 30_000);
    const gap = again.messages.find((m) => m.type === 'gap');
    const got = [...ids(slow.events()), ...ids(again.events())];
    expect(new Set(got).size).toBe(got.length);
    expect(got.length + (gap?.missed_events ?? 0)).toBe(flood.length);
    expect(resumed.replayed).toBe(again.events().length);
  }, 120_000);
});

/**
 * Where each event of an unfiltered client sits on the topic: consecutive handles differ on the partition
 * of the record between them, by one (the run's topic holds only this file's events).
 */
function placed(messages: Message[], start: number[], tag: number): { id: string; partition: number; offset: number }[] {
  let before = start;
  return messages.map((m) => {
    const at = decodeHandle(m.resume, tag, start.length);
    if (!at.ok) throw new Error(at.reason);
    const partition = at.point.offsets.findIndex((o, p) => o !== before[p]);
    before = at.point.offsets;
    return { id: m.id, partition, offset: (at.point.offsets[partition] as number) - 1 };
  });
}
