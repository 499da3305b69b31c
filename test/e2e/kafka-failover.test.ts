// Issue 27: the service on a three-broker cluster (infra/kafka.sh cluster) keeps its guarantees when the
// broker leading most partitions is lost. Under steady HTTP ingest whose positions fall in a zone, the broker
// is SIGKILLed and started again later: every sentence answered 202 is on ais.positions once, its zone
// entry reaches a WebSocket client once, and /readyz shows the degradation, then recovers. The figures
// (time to recover, records delayed) are logged at the end (PSS_TEST_LOG_LEVEL=info shows them).
// eslint-disable-next-line no-restricted-imports -- the test places replicas by hand, which the service never does
import { Admin } from '@platformatic/kafka';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../api/auth/api-keys.ts';
import { KafkaAdmin, KafkaProducer, partitionOfKey, type KafkaOptions } from '../../platform/kafka/index.ts';
import { createPool, migrate, type Pool } from '../../platform/postgres.ts';
import { declaredTopics } from '../../platform/topic-check.ts';
import { topicNames, topicSpecs } from '../../platform/topics.ts';
import { ZoneStore } from '../../processors/maritime/zones/zone-store.ts';
import type { VesselPosition } from '../../schemas/ais.ts';
import { startChildService, type ChildService } from '../support/child-service.ts';
import { steadyIngest, watchReadiness, type ReadinessPoll } from '../support/cluster-load.ts';
import { valueOf } from '../support/codec.ts';
import { CLUSTER_BROKERS, clusterDown, clusterUp, killNode, startNode } from '../support/kafka-cluster.ts';
import { consumeUntil, testConfig, testLog, unique } from '../support/stack.ts';
import { StreamClient, type Message } from '../support/stream-client.ts';

const CENTER: [number, number] = [3.05, 61.05];
const FIRST_MMSI = 257_100_000;
const LINES_PER_REQUEST = 10;
/** Ingest before the kill, while the broker is down, and after it is back. */
const BEFORE_MS = 5_000;
const DOWN_MS = 8_000;
const AFTER_MS = 4_000;

let startedCluster = false;
beforeAll(async () => {
  startedCluster = await clusterUp();
}, 180_000);
// A cluster this file started is stopped again (three JVMs); one that was running is left running.
afterAll(async () => {
  if (startedCluster) await clusterDown().catch(() => undefined);
}, 120_000);

/** The cluster's description of `topic`: each partition's leader. */
async function leadersOf(kafka: KafkaOptions, topic: string): Promise<number[]> {
  const admin = new KafkaAdmin(kafka);
  try {
    const [described] = await admin.describeTopics([{ name: topic, partitions: 2, replicationFactor: 3, config: {} }]);
    return (described?.partitions ?? []).map((p) => p.leader);
  } finally {
    await admin.close();
  }
}

// Regression: the client groups a send's partitions by leader and, after a leader change, retried the whole
// group at the new leader of its first partition. A send begun while the lost broker still led two
// partitions, which then moved to two different brokers, was refused (NOT_LEADER_OR_FOLLOWER) until the
// delivery timeout, and ingest answered 503 all that while (found by this file under load, 2026-11-26).
describe('a send whose partitions move to two different brokers', { timeout: 120_000 }, () => {
  const kafka: KafkaOptions = { brokers: CLUSTER_BROKERS, clientId: 'failover-split', log: testLog, deliveryTimeoutMs: 20_000 };
  const topic = unique('failover-split');
  // Node 1 leads both partitions; when it is lost, partition 0 goes to node 2 and partition 1 to node 3
  // (the first in-sync replica of each list).
  const VICTIM = 1;
  let killed = false;

  beforeAll(async () => {
    const admin = new Admin({ clientId: 'failover-split-admin', bootstrapBrokers: CLUSTER_BROKERS });
    try {
      await admin.createTopics({ topics: [topic], partitions: -1, replicas: -1, assignments: [{ partition: 0, brokers: [1, 2, 3] }, { partition: 1, brokers: [1, 3, 2] }] });
    } finally {
      await admin.close();
    }
  });
  afterAll(async () => {
    if (killed) await startNode(VICTIM).catch(() => undefined);
  });

  it('is delivered to both new leaders, each record once', async () => {
    // Keys for partition 0 and partition 1 of two.
    const keys = [0, 1].map((want) => {
      for (let i = 0; ; i++) if (partitionOfKey(`k${i}`, 2) === want) return `k${i}`;
    });
    await expect.poll(() => leadersOf(kafka, topic), { timeout: 30_000 }).toEqual([VICTIM, VICTIM]);
    const producer = new KafkaProducer(kafka);
    try {
      await producer.send(keys.map((key) => ({ topic, key, value: `before:${key}` })));
      await killNode(VICTIM);
      killed = true;
      // Sent at once, while the client still knows node 1 as the leader of both.
      const sent = producer.send(keys.map((key) => ({ topic, key, value: `after:${key}` })));
      await expect(sent).resolves.toBeUndefined();
      const leaders = await leadersOf(kafka, topic);
      expect(leaders, 'the partitions moved to two different brokers (else this test proves nothing)').toEqual([2, 3]);
    } finally {
      await producer.close().catch(() => undefined);
    }
    const records = await consumeUntil(topic, (seen) => seen.length >= 4, { kafka, timeoutMs: 30_000, quietMs: 1_000 });
    expect(records.map((r) => `${r.partition}:${String(r.value)}`).sort()).toEqual([`0:after:${keys[0]}`, `0:before:${keys[0]}`, `1:after:${keys[1]}`, `1:before:${keys[1]}`]);
    await startNode(VICTIM);
    killed = false;
  });
});

describe('the broker leading most partitions lost under load, then back', { timeout: 240_000 }, () => {
  const config = testConfig({ PSS_TOPIC_PREFIX: `${unique('failover')}.`, PSS_KAFKA_BROKERS: CLUSTER_BROKERS.join(',') });
  const topics = topicNames(config.topicPrefix);
  const kafka: KafkaOptions = { brokers: CLUSTER_BROKERS, clientId: 'failover-test', log: testLog };
  let pool: Pool;
  let child: ChildService | undefined;
  let stream: StreamClient | undefined;
  let zoneId = '';
  let killed = 0;

  beforeAll(async () => {
    await migrate(config.databaseUrl, testLog);
    pool = createPool(config.databaseUrl, 2);
    zoneId = (await new ZoneStore(pool).create({
      name: `Failover approach ${config.topicPrefix}`, type: 'monitoring', alert_level: 'medium', active: true,
      geometry: { type: 'Circle', center: CENTER, radius_meters: 1_500 },
    })).id;
    child = await startChildService(config, 'ingest,processors,api');
  });
  afterAll(async () => {
    stream?.close();
    await child?.kill();
    // A failed run must not leave a node down for the next one.
    if (killed > 0 && !startedCluster) await startNode(killed).catch(() => undefined);
    await pool?.query('DELETE FROM zones WHERE id = $1', [zoneId]);
    await pool?.end();
  });

  it('loses and repeats nothing that was accepted, and /readyz shows the degradation and the recovery', async () => {
    const service = child as ChildService;
    const key = (await createApiKey(pool, config.environment, { name: 'failover', scopes: ['ingest:write', 'events:read'] }, 'test')).key;
    stream = await StreamClient.authenticated(service.url, key);
    await stream.subscribe({ zones: [zoneId] });
    // Each vessel's zone entry: its event ids, and each version of the event (an event is sent again when
    // the incident fusion links it to an incident: same id, incident_id set; the newer replaces the older).
    const entries = new Map<number, { ids: Set<string>; versions: string[] }>();
    stream.ws.on('message', (data) => {
      const m = JSON.parse(String(data)) as Message;
      if (m.type !== 'event' || m.event_type !== 'zone_entry') return;
      const seen = entries.get(m.metadata.mmsi as number) ?? { ids: new Set<string>(), versions: [] };
      seen.ids.add(m.id as string);
      seen.versions.push(JSON.stringify({ ...m, resume: undefined }));
      entries.set(m.metadata.mmsi as number, seen);
    });

    // Readiness, four times a second, for the whole run, and steady ingest: each request carries new
    // vessels, each of which enters the zone once.
    const watch = watchReadiness(service.url);
    const readiness = watch.polls;
    const topicsCheck = (r: ReadinessPoll | undefined) => r?.body?.checks?.kafka_topics;
    const ingest = steadyIngest(service.url, key, { center: CENTER, firstMmsi: FIRST_MMSI, perRequest: LINES_PER_REQUEST });
    const { answers, accepted } = ingest;

    await new Promise((r) => setTimeout(r, BEFORE_MS));
    expect(accepted().length).toBeGreaterThan(0);

    // The broker leading most partitions of the service's topics.
    const admin = new KafkaAdmin(kafka);
    const declared = declaredTopics(topicSpecs(config.topicPrefix), { replicationFactor: 3, minInsyncReplicas: 2 });
    const described = await admin.describeTopics(declared).finally(() => admin.close());
    expect(described.every((t) => t.partitions.every((p) => p.replicas.length === 3))).toBe(true);
    const leads = new Map<number, number>();
    for (const p of described.flatMap((t) => t.partitions)) leads.set(p.leader, (leads.get(p.leader) ?? 0) + 1);
    const [victim] = [...leads].sort((a, b) => b[1] - a[1])[0] as [number, number];

    const killedAt = Date.now();
    await killNode(victim);
    killed = victim;
    await new Promise((r) => setTimeout(r, DOWN_MS));
    const restartedAt = Date.now();
    await startNode(victim);
    killed = 0;
    const backAt = Date.now();
    await new Promise((r) => setTimeout(r, AFTER_MS));
    await ingest.stop();

    // Every accepted sentence on ais.positions once (a sentence not accepted may be there, at most once).
    const wanted = new Set(accepted());
    const mmsiOf = (records: { topic: string; value: Buffer }[]) => records.map((r) => (valueOf(r) as VesselPosition).mmsi);
    const records = await consumeUntil(topics.aisPositions, (seen) => new Set(mmsiOf(seen).filter((m) => wanted.has(m))).size >= wanted.size, { kafka, timeoutMs: 60_000, quietMs: 1_500 });
    const onTopic = new Map<number, number>();
    for (const m of mmsiOf(records)) onTopic.set(m, (onTopic.get(m) ?? 0) + 1);
    expect([...wanted].filter((m) => onTopic.get(m) !== 1)).toEqual([]);
    // A sentence answered otherwise (503 after PSS_INGEST_HTTP_ACK_TIMEOUT_MS) is owed nothing: its send may
    // have outlasted the producer's delivery timeout and been sent again by the ingest queue. Counted, not judged.
    const repeatedUnaccepted = [...onTopic].filter(([m, n]) => n > 1 && !wanted.has(m)).length;

    // Every accepted vessel's zone entry reached the WebSocket client, once.
    const missingEntries = () => [...wanted].filter((m) => !entries.has(m));
    await expect.poll(() => missingEntries().length, { timeout: 90_000, interval: 250 }).toBe(0).catch(async (err: unknown) => {
      // Where the missing events stopped: stored, published, or not made at all.
      const missing = missingEntries();
      const stored = await pool.query<{ n: string; unpublished: string }>(
        `SELECT count(*) AS n, count(o.event_id) AS unpublished FROM security_events e LEFT JOIN event_outbox o ON o.event_id = e.id
          WHERE e.type = 'zone_entry' AND e.body->'metadata'->>'zone_id' = $1 AND (e.body->'metadata'->>'mmsi')::bigint = ANY($2::bigint[])`,
        [zoneId, missing],
      );
      const published = await consumeUntil(topics.securityEvents, () => false, { kafka, timeoutMs: 5_000 });
      const onTopic = new Set(published.map((r) => (valueOf(r) as { metadata: { mmsi?: number } }).metadata.mmsi));
      // Where the zone processor's group stands on the partitions of the missing vessels' positions:
      // committed past them (skipped) or not (not yet handled).
      const admin = new KafkaAdmin(kafka);
      const committed = await admin.committedOffsets(`${config.topicPrefix}maritime-zones`, topics.aisPositions).finally(() => admin.close());
      const missingSet = new Set(missing);
      const byPartition = new Map<number, bigint[]>();
      for (const r of records) if (missingSet.has((valueOf(r) as VesselPosition).mmsi)) byPartition.set(r.partition, [...(byPartition.get(r.partition) ?? []), r.offset]);
      const where = [...byPartition].map(([p, offsets]) => `partition ${p}: ${offsets.length} missing at offsets ${offsets[0]}..${offsets.at(-1)}, group committed ${committed.get(p)}`);
      // The consumers' own view (a consumer without a working stream for a minute is named there).
      const ready = await fetch(`${service.url}/readyz`).then(async (r) => `${r.status} ${JSON.stringify(await r.json())}`).catch((e: unknown) => String(e));
      const warnings = service.logs().filter((l) => /"level":(40|50|60)/.test(l)).slice(-15).map((l) => l.slice(0, 400));
      throw new Error(`${missing.length} accepted vessels without a zone entry on the stream (first ${missing.slice(0, 5).join(', ')}); ${stored.rows[0]?.n} of them stored (${stored.rows[0]?.unpublished} still in the outbox), ${missing.filter((m) => onTopic.has(m)).length} on ${topics.securityEvents}; ${where.join('; ')}; killed at ${killedAt}; /readyz now: ${ready}; last warnings:\n${warnings.join('\n')}`, { cause: err });
    });
    await new Promise((r) => setTimeout(r, 1_000));
    expect([...entries].filter(([, e]) => e.ids.size !== 1).map(([mmsi]) => mmsi)).toEqual([]);
    expect([...entries].filter(([, e]) => new Set(e.versions).size !== e.versions.length).map(([mmsi]) => mmsi)).toEqual([]);

    // /readyz: degraded while the broker was down (a partition without a leader or under-replicated), clean again after.
    await expect.poll(async () => {
      const last = readiness.at(-1);
      return last?.status === 200 && topicsCheck(last)?.ok === true && topicsCheck(last)?.detail === undefined;
    }, { timeout: 60_000, interval: 250 }).toBe(true).catch((err: unknown) => {
      // Which check stayed degraded, and since when.
      const last = readiness.slice(-3).map((r) => ({ after_restart_ms: r.at - backAt, status: r.status, topics: topicsCheck(r) }));
      throw new Error(`/readyz not clean 60 s after the restart; last polls: ${JSON.stringify(last)}`, { cause: err });
    });
    await watch.stop();
    const degraded = readiness.filter((r) => r.at > killedAt && (r.status !== 200 || topicsCheck(r)?.ok !== true || /under-replicated|no leader/.test(topicsCheck(r)?.detail ?? '')));
    expect(degraded.length).toBeGreaterThan(0);
    expect(degraded.some((r) => /under-replicated|no leader/.test(`${topicsCheck(r)?.detail ?? ''}${topicsCheck(r)?.error ?? ''}`))).toBe(true);
    const cleanAgain = readiness.find((r) => r.at > backAt && r.status === 200 && topicsCheck(r)?.ok === true && topicsCheck(r)?.detail === undefined);
    expect(cleanAgain).toBeDefined();
    expect(service.logs().filter((l) => l.includes('Unhandled') || l.includes('uncaught'))).toEqual([]);

    // The figures.
    const afterKill = answers.filter((a) => a.sentAt >= killedAt);
    const firstAccepted = afterKill.find((a) => a.status === 202);
    const slow = answers.filter((a) => a.status === 202 && a.answeredAt - a.sentAt > 1_000);
    const figures = {
      victim,
      leaderships: Object.fromEntries(leads),
      requests: answers.length,
      accepted: wanted.size,
      not_accepted: answers.filter((a) => a.status !== 202).length,
      not_accepted_sentences_written_twice: repeatedUnaccepted,
      statuses: Object.fromEntries([...new Set(answers.map((a) => a.status))].map((s) => [s, answers.filter((a) => a.status === s).length])),
      ingest_recovered_ms: firstAccepted ? firstAccepted.answeredAt - killedAt : undefined,
      slowest_accept_ms: Math.max(...answers.filter((a) => a.status === 202).map((a) => a.answeredAt - a.sentAt)),
      requests_delayed_over_1s: slow.length,
      records_delayed_over_1s: slow.length * LINES_PER_REQUEST,
      readyz_degraded_polls: degraded.length,
      readyz_first_degraded_ms: (degraded[0]?.at ?? killedAt) - killedAt,
      broker_down_ms: backAt - killedAt,
      broker_start_ms: backAt - restartedAt,
      readyz_clean_after_restart_ms: cleanAgain ? cleanAgain.at - backAt : undefined,
      // Streams given up for bringing nothing while their partitions held records (platform/kafka/silent-stream.ts).
      silent_streams_reopened: service.logs().filter((l) => l.includes('the stream brought nothing')).length,
    };
    testLog.info(figures, 'kafka failover figures');
    const warned = new Map<string, number>();
    for (const l of service.logs().filter((x) => /"level":(40|50|60)/.test(x))) {
      const msg = (JSON.parse(l) as { msg?: string }).msg ?? '?';
      warned.set(msg, (warned.get(msg) ?? 0) + 1);
    }
    process.stdout.write(`kafka failover warnings: ${JSON.stringify(Object.fromEntries(warned))}\n`);
    process.stdout.write(`kafka failover figures: ${JSON.stringify(figures)}\n`);

    // Issue 33, item 2: after a broker was lost and came back, SIGTERM timed out in 5 of 5 runs (a fetch stuck
    // at the lost broker held the consumers' close). It stops within the shutdown timeout, exit code 0.
    const termAt = Date.now();
    service.process.kill('SIGTERM');
    const code = await service.exited;
    expect({ code, stop_ms_within_timeout: Date.now() - termAt < config.shutdownTimeoutMs, timedOut: service.logs().some((l) => l.includes('shutdown timed out')) }).toEqual({ code: 0, stop_ms_within_timeout: true, timedOut: false });
  });
});
