import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authFeature, streamFeature } from '../../app/features.ts';
import { compileFilters } from '../../delivery/stream/filters.ts';
import { KafkaProducer } from '../../platform/kafka/index.ts';
import type { SecurityEvent } from '../../schemas/event.ts';
import type { StreamFilters } from '../../schemas/stream.ts';
import { startChildService, type ChildService } from '../support/child-service.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { testConfig, testKafka, unique } from '../support/stack.ts';
import { StreamClient, publish, streamEvent } from '../support/stream-client.ts';

// Issue 10, "Done means": clients streaming from an API process killed with SIGKILL reconnect to the other
// API instance with their last resume handle, and together their two connections hold every event their
// filters match, each once. Instance A is `pss start --roles api` in its own process; B runs in this one.
const KINDS = [
  { type: 'zone_entry', category: 'maritime', severity: 'critical', source_module: 'maritime.zones' },
  { type: 'seal_violation', category: 'gate', severity: 'high', source_module: 'gate' },
  { type: 'mission_launched', category: 'drone', severity: 'low', source_module: 'drones' },
  { type: 'damage_detected', category: 'gate', severity: 'medium', source_module: 'gate' },
  { type: 'zone_exit', category: 'maritime', severity: 'low', source_module: 'maritime.zones' },
  { type: 'drone_lost_link', category: 'drone', severity: 'high', source_module: 'drones' },
] as const;

const FILTERS: StreamFilters[] = [{}, { categories: ['gate'] }, { min_severity: 'high' }, { source_modules: ['drones'], min_severity: 'medium' }];

describe('an API instance killed with SIGKILL while clients stream', () => {
  const config = testConfig({ PSS_TOPIC_PREFIX: `${unique('stream-crash')}.` });
  const producer = new KafkaProducer(testKafka('stream-crash'));
  const run = unique('crash');
  let a: ChildService | undefined;
  let b: TestService;
  const clients: StreamClient[] = [];

  beforeAll(async () => {
    b = await startTestService({ PSS_TOPIC_PREFIX: config.topicPrefix }, [authFeature, streamFeature()]);
    a = await startChildService(config, 'api');
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await a?.kill();
    await b?.stop();
    await producer.close();
  });

  /** A client that follows the spec's reconnect rule: after a lost connection, reconnect (to B) with its handle after 1 s. */
  async function follower(filters: StreamFilters, key: string) {
    const first = await StreamClient.authenticated(a!.url, key);
    clients.push(first);
    await first.subscribe(filters);
    const second = (async () => {
      const { code } = await first.closed;
      await new Promise((r) => setTimeout(r, 1_000));
      const next = await StreamClient.authenticated(b.url, key);
      clients.push(next);
      await next.subscribe(filters, first.lastHandle());
      return { code, next };
    })();
    return { filters, first, second };
  }

  it('loses nothing and duplicates nothing when clients reconnect to the other instance', async () => {
    const key = (await b.key(['events:read'])).key;
    const followers = await Promise.all(FILTERS.map((f) => follower(f, key)));
    const published: SecurityEvent[] = [];
    for (let round = 0; round < 200; round++) {
      const batch = KINDS.map((kind, i) => streamEvent(run, round * KINDS.length + i, { ...kind, location: {} }));
      published.push(...batch);
      await publish(producer, b.context.topics.securityEvents, batch);
      if (round === 60) await a!.kill('SIGKILL');
      await new Promise((r) => setTimeout(r, 15));
    }

    for (const f of followers) {
      const { code, next } = await f.second;
      expect(code).toBe(1006); // the process died: no close frame
      const matches = compileFilters(f.filters);
      const expected = published.filter(matches).map((e) => e.id);
      const got = [...f.first.events(), ...(await next.eventsUntil(expected.length - f.first.events().length, 30_000))].map((m) => m.id as string);
      expect(f.first.events().length).toBeGreaterThan(0);
      expect(new Set(got).size).toBe(got.length);
      expect([...got].sort()).toEqual([...expected].sort());
    }
  }, 120_000);
});
