// Issue 33, items 1-3: the three-broker cluster (infra/kafka.sh cluster) loses its quorum under steady HTTP
// ingest: two of the three nodes are SIGKILLed for about 20 s, then both are started again. Found from
// outside: afterwards the consumer groups stayed frozen with records waiting until the process was
// restarted, /readyz said ready throughout the freeze, ingest requests were held 15 s before their 503,
// and SIGTERM ended in "shutdown timed out". Here, by itself, the service: evaluates every accepted vessel
// (its zone entry reaches a WebSocket client, once) and stores its position, says it is not ready within
// seconds of the loss, answers ingest promptly while nothing can be written, and stops cleanly.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../api/auth/api-keys.ts';
import { KafkaAdmin, type KafkaOptions } from '../../platform/kafka/index.ts';
import { createPool, migrate, type Pool } from '../../platform/postgres.ts';
import { topicNames } from '../../platform/topics.ts';
import { ZoneStore } from '../../processors/maritime/zones/zone-store.ts';
import { startChildService, type ChildService } from '../support/child-service.ts';
import { steadyIngest, watchReadiness } from '../support/cluster-load.ts';
import { CLUSTER_BROKERS, clusterDown, clusterUp, killNode, startNode } from '../support/kafka-cluster.ts';
import { testConfig, testLog, unique } from '../support/stack.ts';
import { StreamClient, type Message } from '../support/stream-client.ts';

const CENTER: [number, number] = [3.45, 61.45];
const FIRST_MMSI = 257_300_000 + Math.floor(Math.random() * 50_000) * 10;
const BEFORE_MS = 5_000;
const DOWN_MS = 20_000;
const AFTER_MS = 5_000;
const VICTIMS = [1, 2];
/** /readyz must say "not ready" within this long of the loss. */
const NOT_READY_WITHIN_MS = 10_000;
/** While nothing can be written, an ingest request is answered within this long. */
const PROMPT_ANSWER_MS = 3_000;

let startedCluster = false;
beforeAll(async () => {
  startedCluster = await clusterUp();
}, 180_000);
afterAll(async () => {
  if (startedCluster) await clusterDown().catch(() => undefined);
}, 120_000);

describe('the cluster loses its quorum under load, then gets it back', { timeout: 300_000 }, () => {
  const config = testConfig({ PSS_TOPIC_PREFIX: `${unique('quorum')}.`, PSS_KAFKA_BROKERS: CLUSTER_BROKERS.join(',') });
  const topics = topicNames(config.topicPrefix);
  const kafka: KafkaOptions = { brokers: CLUSTER_BROKERS, clientId: 'quorum-test', log: testLog };
  let pool: Pool;
  let child: ChildService | undefined;
  let stream: StreamClient | undefined;
  let zoneId = '';
  let down: number[] = [];

  beforeAll(async () => {
    await migrate(config.databaseUrl, testLog);
    pool = createPool(config.databaseUrl, 2);
    zoneId = (await new ZoneStore(pool).create({
      name: `Quorum approach ${config.topicPrefix}`, type: 'monitoring', alert_level: 'medium', active: true,
      geometry: { type: 'Circle', center: CENTER, radius_meters: 1_500 },
    })).id;
    child = await startChildService(config, 'ingest,processors,api');
  });
  afterAll(async () => {
    stream?.close();
    await child?.kill();
    for (const node of down) await startNode(node).catch(() => undefined);
    await pool?.query('DELETE FROM zones WHERE id = $1', [zoneId]);
    await pool?.end();
  });

  it('carries on by itself, says when it cannot write, and stops cleanly', async () => {
    const service = child as ChildService;
    const key = (await createApiKey(pool, config.environment, { name: 'quorum', scopes: ['ingest:write', 'events:read'] }, 'test')).key;
    stream = await StreamClient.authenticated(service.url, key);
    await stream.subscribe({ zones: [zoneId] });
    const entries = new Map<number, Set<string>>();
    stream.ws.on('message', (data) => {
      const m = JSON.parse(String(data)) as Message;
      if (m.type !== 'event' || m.event_type !== 'zone_entry') return;
      const ids = entries.get(m.metadata.mmsi as number) ?? new Set<string>();
      ids.add(m.id as string);
      entries.set(m.metadata.mmsi as number, ids);
    });

    const readiness = watchReadiness(service.url);
    const ingest = steadyIngest(service.url, key, { center: CENTER, firstMmsi: FIRST_MMSI });
    const { answers, accepted } = ingest;

    await new Promise((r) => setTimeout(r, BEFORE_MS));
    expect(accepted().length).toBeGreaterThan(0);

    const killedAt = Date.now();
    for (const node of VICTIMS) {
      await killNode(node);
      down.push(node);
    }
    await new Promise((r) => setTimeout(r, DOWN_MS));
    const restartedAt = Date.now();
    await Promise.all(VICTIMS.map((node) => startNode(node)));
    down = [];
    const backAt = Date.now();
    await new Promise((r) => setTimeout(r, AFTER_MS));
    await ingest.stop();

    // Item 1: every accepted vessel evaluated (its zone entry on the stream, once) and its position stored,
    // without a restart. Before the fix the groups stayed frozen here until the process was restarted.
    const wanted = [...new Set(accepted())];
    const missingEntries = () => wanted.filter((m) => !entries.has(m));
    const storedCount = async () => Number((await pool.query<{ n: string }>('SELECT count(DISTINCT mmsi) AS n FROM vessel_positions WHERE mmsi = ANY($1::bigint[])', [wanted])).rows[0]?.n ?? 0);
    const deadline = Date.now() + 90_000;
    while ((missingEntries().length > 0 || (await storedCount()) < wanted.length) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 500));
    if (missingEntries().length > 0 || (await storedCount()) < wanted.length) {
      const admin = new KafkaAdmin(kafka);
      const groups: string[] = [];
      try {
        for (const [group, topic] of [['maritime-zones', topics.aisPositions], ['vessel-positions', topics.aisPositions]] as const) {
          const committed = await admin.committedOffsets(`${config.topicPrefix}${group}`, topic).catch(() => new Map());
          const ends = await admin.endOffsets(topic).catch(() => new Map());
          groups.push(`${group}: ${[...ends].map(([p, end]) => `${p}:${committed.get(p) ?? '-'}/${end}`).join(' ')}`);
        }
      } finally {
        await admin.close();
      }
      const warnings = service.logs().filter((l) => /"level":(40|50|60)/.test(l)).slice(-15).map((l) => l.slice(0, 400));
      throw new Error(`${missingEntries().length} of ${wanted.length} accepted vessels without a zone entry, ${wanted.length - (await storedCount())} without a stored position, 90 s after the brokers came back (committed/end per partition: ${groups.join('; ')}); /readyz last: ${readiness.polls.at(-1)?.status} ${JSON.stringify(readiness.polls.at(-1)?.body)}; last warnings:\n${warnings.join('\n')}`);
    }
    expect([...entries].filter(([, ids]) => ids.size !== 1).map(([mmsi]) => mmsi)).toEqual([]);

    // Item 3: not ready within seconds of the loss, and ingest answered promptly while nothing could be written.
    const firstNotReady = readiness.polls.find((r) => r.at > killedAt && r.status !== 200);
    expect(firstNotReady, 'not ready at any time while two of three brokers were down').toBeDefined();
    expect((firstNotReady as { at: number }).at - killedAt).toBeLessThanOrEqual(NOT_READY_WITHIN_MS);
    const whileDown = answers.filter((a) => a.sentAt > killedAt + NOT_READY_WITHIN_MS && a.sentAt < restartedAt - PROMPT_ANSWER_MS);
    expect(whileDown.length).toBeGreaterThan(0);
    const held = whileDown.filter((a) => a.answeredAt - a.sentAt > PROMPT_ANSWER_MS);
    expect(held.map((a) => `${a.status} after ${a.answeredAt - a.sentAt} ms`), 'ingest requests held while nothing could be written').toEqual([]);
    expect(whileDown.every((a) => a.status === 503)).toBe(true);
    // And ready again once the cluster is whole.
    await expect.poll(() => readiness.polls.at(-1)?.status, { timeout: 60_000, interval: 250 }).toBe(200);
    await readiness.stop();

    // Item 2: SIGTERM stops it within the shutdown deadline, exit code 0.
    const termAt = Date.now();
    service.process.kill('SIGTERM');
    const code = await service.exited;
    const stopMs = Date.now() - termAt;
    expect({ code, timedOut: service.logs().some((l) => l.includes('shutdown timed out')) }).toEqual({ code: 0, timedOut: false });
    expect(stopMs).toBeLessThan(config.shutdownTimeoutMs);
    process.stdout.write(`kafka quorum-loss figures: ${JSON.stringify({
      accepted: wanted.length,
      statuses: Object.fromEntries([...new Set(answers.map((a) => a.status))].map((s) => [s, answers.filter((a) => a.status === s).length])),
      not_ready_after_ms: (firstNotReady as { at: number }).at - killedAt,
      broker_start_ms: backAt - restartedAt,
      slowest_answer_while_down_ms: Math.max(...whileDown.map((a) => a.answeredAt - a.sentAt)),
      stop_ms: stopMs,
      streams_reopened: service.logs().filter((l) => l.includes('reopening')).length,
    })}\n`);
  });
});
