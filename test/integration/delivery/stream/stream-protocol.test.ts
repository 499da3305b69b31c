import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKey } from '../../../../api/auth/api-keys.ts';
import { authFeature, streamFeature } from '../../../../app/features.ts';
import { KafkaProducer } from '../../../../platform/kafka/index.ts';
import { registry } from '../../../../platform/metrics.ts';
import { ManualClock } from '../../../support/clock.ts';
import { startTestService, type TestService } from '../../../support/service.ts';
import { testKafka, unique } from '../../../support/stack.ts';
import { StreamClient, publish, streamEvent } from '../../../support/stream-client.ts';

// Issue 10 item 4: the spec's stream protocol on the real service (api role), Kafka and Postgres, with `ws`
// as a plain client. The service's heartbeat clock is a ManualClock, so heartbeats come when the test says.
describe('GET /v1/events/stream', () => {
  const clock = new ManualClock();
  const producer = new KafkaProducer(testKafka('stream-protocol'));
  const run = unique('protocol');
  let service: TestService;
  let topic: string;
  let reader: string;
  let n = 0;
  const clients: StreamClient[] = [];

  beforeAll(async () => {
    service = await startTestService({ PSS_TOPIC_PREFIX: `${unique('stream')}.` }, [authFeature, streamFeature({ clock })]);
    topic = service.context.topics.securityEvents;
    reader = (await service.key(['events:read'])).key;
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await service?.stop();
    await producer.close();
  });

  async function connect(token?: string, options = {}): Promise<StreamClient> {
    const client = await StreamClient.connect(service.url, token, options);
    clients.push(client);
    return client;
  }
  async function subscribed(filters = {}): Promise<StreamClient> {
    const client = await connect(reader);
    await client.next((m) => m.type === 'authenticated');
    await client.subscribe(filters);
    return client;
  }
  const event = (overrides = {}) => streamEvent(run, n++, overrides);

  describe('authentication', () => {
    it('accepts the credential as the token query parameter', async () => {
      const client = await connect(reader);
      const hello = await client.next();
      expect(hello).toMatchObject({ type: 'authenticated', credential_id: expect.stringMatching(/^key_/) });
    });

    it('accepts the credential in a first {"type":"auth"} message', async () => {
      const client = await connect();
      client.send({ type: 'auth', token: reader });
      expect(await client.next()).toMatchObject({ type: 'authenticated' });
      await client.subscribe();
    });

    it('takes a subscribe sent before the credential check finished', async () => {
      const client = await connect(reader);
      client.send({ type: 'subscribe', filters: {} });
      expect((await client.next()).type).toBe('authenticated');
      expect((await client.next()).type).toBe('subscribed');
    });

    it('closes 4401 when no credential arrives within 10 s', async () => {
      const client = await connect();
      clock.advance(10_000);
      expect(await client.next()).toMatchObject({ type: 'error', code: 'unauthorized' });
      expect((await client.closed).code).toBe(4401);
    });

    it('closes 4401 for an unknown credential, and for another message before auth', async () => {
      const unknown = await connect('svc_test_0000000000000000_nope');
      expect(await unknown.next()).toMatchObject({ type: 'error', code: 'unauthorized' });
      expect(await unknown.closed).toMatchObject({ code: 4401, reason: expect.stringMatching(/invalid, revoked or expired/) });
      const early = await connect();
      early.send({ type: 'subscribe' });
      expect((await early.closed).code).toBe(4401);
    });

    it('refuses a credential without events:read with 4403 and says why', async () => {
      const { key } = await service.key(['maritime:read']);
      const client = await connect(key);
      expect(await client.next()).toMatchObject({ type: 'error', code: 'forbidden', message: expect.stringMatching(/events:read/) });
      expect(await client.closed).toMatchObject({ code: 4403, reason: expect.stringMatching(/events:read/) });
    });

    it('disconnects a credential revoked while it streams, at the next heartbeat', async () => {
      const { id, key } = await service.key(['events:read']);
      const client = await connect(key);
      await client.next((m) => m.type === 'authenticated');
      await revokeApiKey(service.context.pool, id);
      clock.advance(30_000);
      expect(await client.next((m) => m.type === 'error')).toMatchObject({ code: 'unauthorized', message: expect.stringMatching(/revoked or has expired/) });
      expect((await client.closed).code).toBe(4401);
    });
  });

  describe('subscriptions', () => {
    it('delivers the events its filters match, with the spec fields and a resume handle', async () => {
      const client = await subscribed({ categories: ['gate', 'perimeter'], min_severity: 'high' });
      const events = [
        event({ type: 'seal_violation', category: 'gate', severity: 'high', location: {} }),
        event({ type: 'damage_detected', category: 'gate', severity: 'medium', location: {} }),
        event({ type: 'perimeter_breach', category: 'perimeter', severity: 'high', source_module: 'perimeter' }),
        event(), // maritime
        event({ type: 'gate_locked', category: 'gate', severity: 'critical', location: {} }),
      ];
      await publish(producer, topic, events);
      const got = await client.eventsUntil(3);
      expect(got.map((m) => m.id).sort()).toEqual([events[0]!.id, events[2]!.id, events[4]!.id].sort());
      const first = got.find((m) => m.id === events[0]!.id) as Record<string, unknown>;
      expect(Object.keys(first).sort()).toEqual(
        ['type', 'id', 'event_type', 'timestamp', 'category', 'severity', 'source_module', 'source_device', 'title', 'description', 'location', 'metadata', 'requires_action', 'assigned_to', 'incident_id', 'resume'].sort(),
      );
      expect(first).toMatchObject({ type: 'event', event_type: 'seal_violation', category: 'gate', severity: 'high', resume: expect.stringMatching(/^[A-Za-z0-9_-]+$/) });
    });

    it('filters by zone (name or id) and by source module', async () => {
      const client = await subscribed({ zones: ['Harbour mouth', 'zone_42'], source_modules: ['maritime.zones'] });
      const events = [
        event(),
        event({ location: { lat: 1, lng: 2, zone: 'Elsewhere' } }),
        event({ location: { lat: 1, lng: 2, zone: 'Renamed' }, metadata: { zone_id: 'zone_42' } }),
        event({ source_module: 'other' }),
      ];
      await publish(producer, topic, events);
      expect((await client.eventsUntil(2)).map((m) => m.id).sort()).toEqual([events[0]!.id, events[2]!.id].sort());
    });

    it('update_filters changes what arrives from then on; unsubscribe stops events', async () => {
      const client = await subscribed({ categories: ['gate'] });
      client.send({ type: 'update_filters', filters: { categories: ['maritime'] } });
      expect(await client.next((m) => m.type === 'subscribed')).toMatchObject({ filters: { categories: ['maritime'] } });
      const maritime = event();
      await publish(producer, topic, [event({ type: 'seal_violation', category: 'gate', severity: 'high', location: {} }), maritime]);
      expect((await client.eventsUntil(1)).map((m) => m.id)).toEqual([maritime.id]);

      client.send({ type: 'unsubscribe' });
      expect((await client.next((m) => m.type === 'unsubscribed')).type).toBe('unsubscribed');
      await publish(producer, topic, [event()]);
      expect(await client.eventsUntil(2, 2_000)).toHaveLength(1);
      client.send({ type: 'update_filters', filters: {} });
      expect(await client.next((m) => m.type === 'error')).toMatchObject({ code: 'not_subscribed' });
    });

    it('answers an unknown category with invalid_filter listing the valid ones, and stays open', async () => {
      const client = await connect(reader);
      client.send({ type: 'subscribe', filters: { categories: ['maritime', 'weather'] } });
      const error = await client.next((m) => m.type === 'error');
      expect(error.code).toBe('invalid_filter');
      expect(error.message).toMatch(/unknown category "weather"; valid categories are gate, perimeter, maritime, drone, system, decision/);
      client.send({ type: 'subscribe', filters: { min_severity: 'severe', colour: 'red' } });
      const both = await client.next((m) => m.type === 'error');
      expect(both.message).toMatch(/unknown min_severity "severe"; valid severities are low, medium, high, critical/);
      expect(both.message).toMatch(/unknown filter "colour"/);
      await client.subscribe({ categories: ['maritime'] });
    });

    it('answers malformed messages with invalid_message and never drops the connection for them', async () => {
      const client = await connect(reader);
      for (const bad of ['not json', '[1,2]', '{"type":"dance"}', '{"type":"subscribe","filter":{}}', '{"type":"auth","token":"x"}']) {
        client.send(bad);
        const error = await client.next((m) => m.type === 'error');
        expect(['invalid_message', 'already_authenticated']).toContain(error.code);
      }
      client.ws.send(Buffer.from([1, 2, 3]), { binary: true });
      expect(await client.next((m) => m.type === 'error')).toMatchObject({ code: 'invalid_message', message: expect.stringMatching(/binary/) });
      await client.subscribe();
      const e = event();
      await publish(producer, topic, [e]);
      expect((await client.eventsUntil(1)).map((m) => m.id)).toEqual([e.id]);
    });
  });

  describe('heartbeat', () => {
    it('sends a heartbeat every 30 s with events_sent and connection_uptime_seconds', async () => {
      const client = await subscribed();
      const e = event();
      await publish(producer, topic, [e]);
      await client.eventsUntil(1);
      clock.advance(30_000);
      const beat = await client.next((m) => m.type === 'heartbeat');
      expect(beat).toMatchObject({ events_sent: 1, connection_uptime_seconds: 30, resume: expect.any(String) });
      expect(Date.parse(beat.timestamp)).toBe(clock.now());
      // The client's pong answers the beat's ping in real time; let it arrive before the next beat.
      await new Promise((r) => setTimeout(r, 200));
      clock.advance(30_000);
      expect(await client.next((m) => m.type === 'heartbeat')).toMatchObject({ events_sent: 1, connection_uptime_seconds: 60 });
    });

    it('drops a client that does not answer the ping of the previous heartbeat', async () => {
      const client = await connect(reader, { autoPong: false });
      await client.next((m) => m.type === 'authenticated');
      clock.advance(30_000);
      await client.next((m) => m.type === 'heartbeat');
      clock.advance(30_000);
      expect((await client.closed).code).toBe(1006);
      expect(await registry.getSingleMetricAsString('pss_stream_drops_total')).toMatch(/reason="ping_timeout"} [1-9]/);
    });
  });

  it('negotiates permessage-deflate when the client offers it', async () => {
    const plain = await connect(reader);
    const deflate = await connect(reader, { perMessageDeflate: true });
    expect(plain.ws.extensions).toBe('');
    expect(deflate.ws.extensions).toMatch(/^permessage-deflate/);
    await deflate.next((m) => m.type === 'authenticated');
    await deflate.subscribe();
    const big = event({ description: 'x'.repeat(5_000) });
    await publish(producer, topic, [big]);
    expect((await deflate.eventsUntil(1))[0]).toMatchObject({ id: big.id, description: big.description });
  });
});
