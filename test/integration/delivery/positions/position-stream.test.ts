import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authFeature, positionStreamFeature } from '../../../../app/features.ts';
import { KafkaProducer } from '../../../../platform/kafka/index.ts';
import { topicSpecs } from '../../../../platform/topics.ts';
import type { VesselPosition } from '../../../../schemas/ais.ts';
import { jsonCodec } from '../../../support/codec.ts';
import { startTestService, type TestService } from '../../../support/service.ts';
import { testKafka, unique, withAdmin } from '../../../support/stack.ts';
import { StreamClient, type Message } from '../../../support/stream-client.ts';
import { position } from '../../../support/tracks.ts';

// Issue 26 item 3: the position stream (our extension) on the real service, Kafka and Postgres, with `ws`
// as a plain client: snapshot, bounding box and vessels leaving it, at most one update per vessel a
// second, resume from a handle (here and on another instance), the gap when a handle is older than what an
// instance read, the scope, and bad filters and handles.
const PATH = '/v1/positions/stream';
const BASE = 219_000_000 + Math.floor(Math.random() * 900) * 1_000;
/** Copenhagen harbour; the box the tests subscribe with. */
const BOX = [12.55, 55.65, 12.65, 55.72];

describe('GET /v1/positions/stream', () => {
  const prefix = `${unique('positions')}.`;
  const producer = new KafkaProducer(testKafka('position-stream'));
  let service: TestService;
  let reader: string;
  let topic: string;
  const clients: StreamClient[] = [];
  let clock = Date.now() - 60_000;

  beforeAll(async () => {
    service = await startTestService({ PSS_TOPIC_PREFIX: prefix }, [authFeature, positionStreamFeature()]);
    topic = service.context.topics.aisPositions;
    reader = (await service.key(['maritime:read'])).key;
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await service?.stop();
    await producer.close();
    await withAdmin((a) => a.deleteTopics(topicSpecs(prefix).map((t) => t.name)));
  });

  const produce = (positions: VesselPosition[]) =>
    producer.send(positions.map((p) => ({ topic, key: String(p.mmsi), value: jsonCodec.encode('aisPositions', p) })));
  /** A report of `mmsi` at (lon, lat), each later than the last. */
  const report = (mmsi: number, lon: number, lat: number) => position(mmsi, new Date((clock += 1000)), lon, lat);

  async function connect(url = service.url, token = reader): Promise<StreamClient> {
    const client = await StreamClient.authenticated(url, token, {}, PATH);
    clients.push(client);
    return client;
  }
  const positionsOf = (c: StreamClient, mmsi: number) => c.messages.filter((m) => m.type === 'positions').flatMap((m) => (m.positions as Message[]).filter((p) => p.mmsi === mmsi));

  it('sends a snapshot of the vessels within the box, then the ones that move, and names those that leave', async () => {
    const [inside, outside] = [BASE + 1, BASE + 2];
    await produce([report(inside, 12.6, 55.69), report(outside, 10.0, 57.0)]);
    await new Promise((r) => setTimeout(r, 1500));
    const client = await connect();
    expect(await client.subscribe({ bbox: BOX })).toMatchObject({ type: 'subscribed', filters: { bbox: BOX }, resume: expect.any(String) });
    const snapshot = await client.next((m) => m.type === 'positions');
    expect(snapshot).toMatchObject({ snapshot: true, left: [], resume: expect.any(String) });
    expect(snapshot.positions.filter((p: Message) => p.mmsi >= BASE && p.mmsi < BASE + 1000)).toEqual([
      { mmsi: inside, lat: 55.69, lon: 12.6, sog: 8, cog: 90, reported_at: expect.any(String) },
    ]);
    await produce([report(outside, 10.01, 57.0), report(inside, 12.61, 55.69)]);
    const moved = await client.next((m) => m.type === 'positions');
    expect(moved.snapshot).toBeUndefined();
    expect(moved.positions.map((p: Message) => [p.mmsi, p.lon])).toEqual([[inside, 12.61]]);
    await produce([report(inside, 12.0, 55.69)]);
    expect(await client.next((m) => m.type === 'positions')).toMatchObject({ positions: [], left: [inside] });
    expect(positionsOf(client, outside)).toEqual([]);
  });

  it('sends a vessel at most once a second, its newest report', async () => {
    const mmsi = BASE + 3;
    const client = await connect();
    await client.subscribe({ mmsi: [mmsi] });
    const burst = Array.from({ length: 30 }, (_, i) => report(mmsi, 12.6 + i * 0.0001, 55.69));
    const started = Date.now();
    for (let i = 0; i < 30; i += 3) {
      await produce(burst.slice(i, i + 3));
      await new Promise((r) => setTimeout(r, 100));
    }
    const seen: Message[] = [];
    while (seen.at(-1)?.lon !== burst.at(-1)?.lon) seen.push(...((await client.next((m) => m.type === 'positions')).positions as Message[]));
    const seconds = (Date.now() - started) / 1000;
    // 30 reports in about a second: two or three flushes carried the vessel, the last one its newest report.
    expect(seen.length).toBeLessThanOrEqual(Math.ceil(seconds) + 1);
    expect(seen.length).toBeLessThan(30);
    const messages = client.messages.filter((m) => m.type === 'positions' && !m.snapshot);
    expect(messages.every((m) => (m.positions as Message[]).filter((p) => p.mmsi === mmsi).length <= 1)).toBe(true);
    expect(seen.at(-1)).toMatchObject({ lon: burst.at(-1)?.lon, reported_at: burst.at(-1)?.reported_at });
  });

  it('resumes with a handle: the vessels that moved meanwhile, once, on this instance and on another', async () => {
    const [a, b, c] = [BASE + 4, BASE + 5, BASE + 6];
    await produce([report(a, 12.6, 55.68), report(b, 12.61, 55.68), report(c, 12.62, 55.68)]);
    const first = await connect();
    await first.subscribe({ bbox: BOX });
    await first.next((m) => m.type === 'positions' && (m.positions as Message[]).some((p) => p.mmsi === c));
    const handle = first.lastHandle() as string;
    first.close();
    await first.closed;
    await produce([report(a, 12.6, 55.685), report(b, 11.0, 55.68)]);
    await new Promise((r) => setTimeout(r, 1500));

    const again = await connect();
    await again.subscribe({ bbox: BOX }, handle);
    const replay = again.messages.filter((m) => m.type === 'positions');
    expect(replay).toHaveLength(1);
    expect(replay[0]).toMatchObject({ left: [b] });
    expect(replay[0]?.positions.map((p: Message) => [p.mmsi, p.lat])).toEqual([[a, 55.685]]);
    expect(again.messages.find((m) => m.type === 'resumed')).toMatchObject({ replayed: 1, resume: expect.any(String) });

    // Another instance (its own reader of the same topic) resumes the same handle the same way.
    const other = await startTestService({ PSS_TOPIC_PREFIX: prefix }, [authFeature, positionStreamFeature()]);
    try {
      await new Promise((r) => setTimeout(r, 2000));
      const elsewhere = await connect(other.url);
      await elsewhere.subscribe({ bbox: BOX }, handle);
      const there = elsewhere.messages.filter((m) => m.type === 'positions');
      expect(there).toHaveLength(1);
      expect(there[0]?.positions.map((p: Message) => [p.mmsi, p.lat])).toEqual([[a, 55.685]]);
      expect(there[0]?.left).toContain(b);
    } finally {
      await other.stop();
    }
  });

  it('answers a handle older than what the instance read with the gap message and a snapshot', async () => {
    const mmsi = BASE + 7;
    const first = await connect();
    await first.subscribe({ bbox: BOX });
    const handle = first.lastHandle() as string;
    first.close();
    await produce([report(mmsi, 12.6, 55.7)]);
    // An instance that reads no records from before its start: the handle asks for reports it never read.
    const fresh = await startTestService({ PSS_TOPIC_PREFIX: prefix, PSS_POSITION_STREAM_WARMUP_RECORDS: '0' }, [authFeature, positionStreamFeature()]);
    try {
      await produce([report(mmsi, 12.61, 55.7)]);
      await new Promise((r) => setTimeout(r, 1500));
      const client = await connect(fresh.url);
      await client.subscribe({ bbox: BOX }, handle);
      const gap = client.messages.find((m) => m.type === 'gap');
      expect(gap).toMatchObject({ message: expect.stringMatching(/older than the reports this instance read/), vessels_url: expect.stringMatching(/\/v1\/vessels$/) });
      const snapshot = client.messages.find((m) => m.type === 'positions');
      expect(snapshot).toMatchObject({ snapshot: true });
      expect(snapshot?.positions.map((p: Message) => [p.mmsi, p.lon])).toEqual([[mmsi, 12.61]]);
      expect(client.messages.map((m) => m.type)).toEqual(['authenticated', 'subscribed', 'gap', 'positions', 'resumed']);
    } finally {
      await fresh.stop();
    }
  });

  it('refuses a credential without maritime:read (4403)', async () => {
    const events = (await service.key(['events:read'])).key;
    const client = await StreamClient.connect(service.url, events, {}, PATH);
    clients.push(client);
    expect(await client.next()).toMatchObject({ type: 'error', code: 'forbidden', message: expect.stringContaining('maritime:read') });
    expect((await client.closed).code).toBe(4403);
  });

  it('answers bad filters, messages and handles with an error and keeps the connection', async () => {
    const client = await connect();
    const cases: [unknown, string, RegExp][] = [
      [{ type: 'subscribe', filters: { bbox: [200, 0, 10, 10] } }, 'invalid_filter', /longitudes from -180 to 180/],
      [{ type: 'subscribe', filters: { bbox: [0, 10, 10, 0] } }, 'invalid_filter', /south \(10\) is north of north/],
      [{ type: 'subscribe', filters: { bbox: [0, 0, 10] } }, 'invalid_filter', /has 3 items; it is \[west, south, east, north\]/],
      [{ type: 'subscribe', filters: { bbox: ['a', 0, 1, 1] } }, 'invalid_filter', /filters\/bbox\/0 must be number/],
      [{ type: 'subscribe', filters: { mmsi: Array.from({ length: 5000 }, (_, i) => i) } }, 'invalid_filter', /has 5000 items; at most 1000/],
      [{ type: 'subscribe', filters: { zones: ['x'] } }, 'invalid_filter', /unknown filter "zones"; filters are bbox, mmsi/],
      [{ type: 'subscribe', resume: 'not a handle' }, 'invalid_resume', /not a resume handle/],
      [{ type: 'update_filters', filters: {} }, 'not_subscribed', /subscribe first/],
      [{ type: 'dance' }, 'invalid_message', /unknown message type "dance"/],
      ['{"type":', 'invalid_message', /not JSON/],
    ];
    for (const [message, code, words] of cases) {
      client.send(message);
      expect(await client.next()).toMatchObject({ type: 'error', code, message: expect.stringMatching(words) });
    }
    // The handle of the event stream is another topic's.
    client.send({ type: 'subscribe', resume: 'AQAAAAYAAAAAAAAA' });
    expect(await client.next()).toMatchObject({ type: 'error', code: 'invalid_resume' });
    await client.subscribe({ bbox: [170, -10, -170, 10] });
    expect(await client.next((m) => m.type === 'positions')).toMatchObject({ snapshot: true });
  });
});
