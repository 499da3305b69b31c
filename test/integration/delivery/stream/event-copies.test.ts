import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authFeature, streamFeature, webhooksFeature } from '../../../../app/features.ts';
import { eventRecord } from '../../../../events/event-record.ts';
import { KafkaProducer } from '../../../../platform/kafka/index.ts';
import { metricTotal } from '../../../../platform/metrics.ts';
import { topicSpecs } from '../../../../platform/topics.ts';
import type { SecurityEvent } from '../../../../schemas/event.ts';
import { jsonCodec } from '../../../support/codec.ts';
import { call, startTestService, type TestService } from '../../../support/service.ts';
import { testKafka, unique, withAdmin } from '../../../support/stack.ts';
import { StreamClient, streamEvent, type Message } from '../../../support/stream-client.ts';
import { eventually, startReceiver, type Receiver } from '../../../support/webhook-receiver.ts';

// Issue 21 item 6: a relay killed after the broker took its batch and before it marked the batch published
// leaves the batch in the outbox, and the next relay turn publishes it again, same ids. The stream deduped by
// topic position only, so its clients got those events twice. Here the copies are written as such a relay
// writes them; live clients, clients resuming (from an instance's memory and from Kafka), a client of an
// instance started between the two copies, and a webhook receiver must each get every event once, while an
// operator's change (a higher revision) still arrives.
describe('events published twice on security.events', () => {
  const prefix = `${unique('copies')}.`;
  const producer = new KafkaProducer(testKafka('stream-copies'));
  const run = unique('copies');
  const module = unique('copies-module');
  const services: TestService[] = [];
  const clients: StreamClient[] = [];
  let receiver: Receiver;
  let topic: string;
  let key: string;

  const start = async (extra: Record<string, string> = {}) => {
    const features = services.length === 0 ? [authFeature, streamFeature(), webhooksFeature()] : [authFeature, streamFeature()];
    const service = await startTestService({ PSS_TOPIC_PREFIX: prefix, PSS_WEBHOOK_ALLOW_LOOPBACK: 'true', ...extra }, features);
    services.push(service);
    return service;
  };
  const filters = () => ({ source_modules: [module] });
  const connect = async (service: TestService, resume?: string) => {
    const client = await StreamClient.authenticated(service.url, key);
    clients.push(client);
    await client.subscribe(filters(), resume);
    return client;
  };
  /** As the relay writes them: keyed by id, `change` and `revision` headers. */
  const write = (events: SecurityEvent[], change: 'created' | 'updated' = 'created', revision = 0) =>
    producer.send(events.map((e) => eventRecord(jsonCodec, topic, e, change, revision)));
  const ids = (messages: Message[]) => messages.map((m) => m.id as string);

  beforeAll(async () => {
    receiver = await startReceiver();
    await start();
    topic = services[0]!.context.topics.securityEvents;
    key = (await services[0]!.key(['events:read', 'webhooks:write'])).key;
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    const first = services[0];
    if (first) await first.context.pool.query('DELETE FROM webhooks WHERE url LIKE $1', [`${receiver.url('')}%`]);
    await Promise.all(services.map((s) => s.stop()));
    await producer.close();
    await receiver?.close();
    await withAdmin((a) => a.deleteTopics(topicSpecs(prefix).map((t) => t.name)));
  });

  it('reaches every stream client and a webhook once per event, live and resumed on any instance', async () => {
    const [a] = services as [TestService];
    const b = await start();
    const c = await start({ PSS_STREAM_REPLAY_RECORDS: '0' });
    const hook = await call(`${a.url}/v1/webhooks`, key, { method: 'POST', json: { name: 'copies', url: receiver.url('/copies'), events: ['zone_entry'], secret: 'whsec_copies_0123456789abcdef' } });
    expect(hook.status).toBe(201);

    const live = await connect(a);
    const before = live.lastHandle() as string;
    const events = Array.from({ length: 40 }, (_, i) => streamEvent(run, i, { source_module: module }));
    await write(events);
    await live.eventsUntil(events.length);
    const between = live.lastHandle() as string;

    // An instance started after the first copies: it learns their ids from the topic as it starts.
    const d = await start();
    const lateLive = await connect(d, between);
    const skippedBefore = await metricTotal('pss_stream_event_copies_skipped_total');
    await write(events);
    const marker = streamEvent(run, 1_000, { source_module: module });
    await write([marker]);
    // Every hub (a, b, c, d) has passed every copy.
    await eventually(async () => (await metricTotal('pss_stream_event_copies_skipped_total')) - skippedBefore >= 4 * events.length);

    const all = [...events, marker].map((e) => e.id);
    expect(ids(await live.eventsUntil(all.length))).toEqual(expect.arrayContaining(all));
    expect(live.events()).toHaveLength(all.length);
    expect(ids(await lateLive.eventsUntil(1))).toEqual([marker.id]);
    expect((await metricTotal('pss_stream_event_copies_skipped_total')) - skippedBefore).toBe(4 * events.length);

    for (const service of [a, b, c, d]) {
      const fromStart = await connect(service, before);
      const fromBetween = await connect(service, between);
      const got = ids(await fromStart.eventsUntil(all.length));
      expect(got, service.url).toHaveLength(all.length);
      expect(new Set(got)).toEqual(new Set(all));
      expect(ids(await fromBetween.eventsUntil(1))).toEqual([marker.id]);
      fromStart.close();
      fromBetween.close();
    }

    await eventually(() => receiver.received.length >= all.length);
    const delivered = await a.context.pool.query<{ n: string }>('SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = $1', [hook.json.data.id]);
    expect(Number(delivered.rows[0]?.n)).toBe(all.length);
    expect(receiver.received.map((r) => r.body.event.id).sort()).toEqual([...all].sort());
  });

  it('still sends an operator\'s change (a higher revision) of an event it sent, once', async () => {
    const [a] = services as [TestService];
    const live = await connect(a);
    const event = streamEvent(run, 2_000, { source_module: module });
    await write([event]);
    await live.eventsUntil(1);
    const changed = { ...event, assigned_to: 'duty officer' };
    await write([changed], 'updated', 1);
    await write([changed], 'updated', 1);
    // An older copy published after the change is not sent either.
    await write([event]);
    const after = streamEvent(run, 2_001, { source_module: module });
    await write([after]);
    const got = await live.eventsUntil(3);
    expect(got.map((m) => [m.id, m.assigned_to])).toEqual([
      [event.id, ''],
      [event.id, 'duty officer'],
      [after.id, ''],
    ]);
  });
});
