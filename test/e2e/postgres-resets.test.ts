// Issue 21, item 4: with the processors and api roles in one process, Postgres connections reset while a
// part of the service held one (checked out of the pool, mid-transaction) ended the process: an 'error'
// event on a pg Client with no listener. `pss start --roles processors,api` runs in its own process with
// its Postgres connections through a proxy; each case below resets every connection just after a
// statement of one holder's transaction was answered (so that holder is in the middle of its work) and
// refuses new connections for a while. The process must stay up, /readyz say why meanwhile, and the
// work be done once Postgres takes connections again: nothing lost, nothing stored twice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../api/auth/api-keys.ts';
import { SecretBox } from '../../delivery/webhooks/secret-box.ts';
import { createWebhook } from '../../delivery/webhooks/store.ts';
import { KafkaProducer } from '../../platform/kafka/index.ts';
import { createPool, migrate, type Pool } from '../../platform/postgres.ts';
import { topicNames } from '../../platform/topics.ts';
import { ZoneStore } from '../../processors/maritime/zones/zone-store.ts';
import type { SecurityEvent } from '../../schemas/event.ts';
import { startChildService, type ChildService } from '../support/child-service.ts';
import { valueOf } from '../support/codec.ts';
import { reading } from '../support/gate-readings.ts';
import { findingsOf } from '../../ingest/gate/readings.ts';
import type { GateReadingRecord } from '../../schemas/gate-reading.ts';
import { call } from '../support/service.ts';
import { consumeUntil, testConfig, testKafka, testLog, unique } from '../support/stack.ts';
import { StreamClient } from '../support/stream-client.ts';
import { startTcpProxy, targetOf, throughProxy, type TcpProxy } from '../support/tcp-proxy.ts';
import { position } from '../support/tracks.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';

/** New connections are reset for this long after each cut, as while a proxy or a failover is down. */
const REFUSE_MS = 3_000;
/** A cut fires once its holder runs its statement: well within this. */
const TRIGGER_MS = 20_000;
/** Work resumes within seconds of Postgres taking connections again; this only bounds a failing run. */
const RESUME_MS = 30_000;
/** Each case: a trigger, a resume and a readiness wait at most. */
const CASE_MS = 120_000;
const ZONE_CENTER: [number, number] = [11.93, 57.71];
const T0 = new Date('2026-11-26T06:00:00Z');

/** Statements that only one holder sends, each from inside its transaction. */
const STATEMENT = {
  relayClaim: 'FOR UPDATE OF o SKIP LOCKED',
  zoneCheckpoint: 'INSERT INTO maritime_vessel_state',
  gateTransactions: 'INSERT INTO gate_transactions',
  webhookRecording: 'ORDER BY id FOR NO KEY UPDATE',
  streamLease: "hashtextextended('stream_connections:'",
};

describe('Postgres connections reset under every holder of a checked-out client', { timeout: CASE_MS }, () => {
  const config = testConfig({ PSS_TOPIC_PREFIX: `${unique('pg-reset')}.` });
  const topics = topicNames(config.topicPrefix);
  const module = unique('reset');
  const producer = new KafkaProducer(testKafka('pg-reset'));
  let proxy: TcpProxy;
  let pool: Pool;
  let child: ChildService;
  let receiver: Receiver;
  let key: string;
  let zoneId: string;
  let webhookId: string;

  beforeAll(async () => {
    await migrate(config.databaseUrl, testLog);
    pool = createPool(config.databaseUrl, 4);
    proxy = await startTcpProxy(targetOf(config.databaseUrl));
    receiver = await startReceiver();
    zoneId = (await new ZoneStore(pool).create({
      name: `Reset test berth ${module}`, type: 'restricted', alert_level: 'high', active: true,
      geometry: { type: 'Circle', center: ZONE_CENTER, radius_meters: 400 },
    })).id;
    webhookId = (await createWebhook(pool, new SecretBox(''), { name: `reset ${module}`, url: receiver.url('/reset'), events: ['perimeter_breach'], secret: 'whsec_reset_0123456789abcdef' })).id;
    child = await startChildService(config, 'processors,api', {
      PSS_DATABASE_URL: throughProxy(config.databaseUrl, proxy),
      PSS_DATABASE_CONNECT_TIMEOUT_MS: '2000',
      // The zone processor in the service's own thread: a crash there is the process's.
      PSS_MARITIME_ZONE_WORKERS: '0',
      PSS_WEBHOOK_ALLOW_LOOPBACK: 'true',
    });
    key = (await createApiKey(pool, config.environment, { name: 'pg-reset', scopes: ['events:read', 'events:write'] }, 'test')).key;
  });
  afterAll(async () => {
    await child?.kill();
    await pool?.query('DELETE FROM webhooks WHERE id = $1', [webhookId]);
    await pool?.query('DELETE FROM zones WHERE id = $1', [zoneId]);
    await pool?.query('DELETE FROM security_events WHERE source_module = $1', [module]);
    await pool?.end();
    await proxy?.close();
    await receiver?.close();
    await producer.close();
  });

  /** The reset `statement` arms, once it fired; fails the case if its holder never ran it. */
  async function cutAfter(statement: string, trigger: () => Promise<unknown>): Promise<void> {
    const fired = proxy.resetAfter(statement, REFUSE_MS);
    await trigger();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no statement with "${statement}" within ${TRIGGER_MS} ms`)), TRIGGER_MS)));
    await Promise.race([fired, late]).finally(() => clearTimeout(timer));
  }

  const alive = () => child.process.exitCode === null && child.process.signalCode === null;
  /** HTTP to the service; a dead service is named as such rather than as a failed fetch. */
  const reach = async <T>(request: () => Promise<T>): Promise<T> => {
    try {
      return await request();
    } catch (err) {
      // A process that just died may not have been reaped yet.
      await Promise.race([child.exited, new Promise((r) => setTimeout(r, 1_000))]);
      if (!alive()) throw new Error(`the service process exited (code ${child.process.exitCode}, signal ${child.process.signalCode})`, { cause: err });
      throw err;
    }
  };
  const count = async (sql: string, params: unknown[]) => Number((await pool.query<{ n: string }>(sql, params)).rows[0]?.n);
  const readiness = async () => {
    const res = await reach(() => fetch(`${child.url}/readyz`));
    return { status: res.status, body: (await res.json()) as { failing?: string[]; checks: Record<string, { ok: boolean; error?: string }> } };
  };

  /** POST /v1/events, retried (same idempotency key) while the service answers 503. */
  async function postEvent(body: Record<string, unknown>): Promise<string> {
    const idempotency = unique('intake');
    let last = '';
    for (const deadline = Date.now() + RESUME_MS; Date.now() < deadline; await new Promise((r) => setTimeout(r, 250))) {
      const res = await reach(() => call(`${child.url}/v1/events`, key, { method: 'POST', json: body, headers: { 'idempotency-key': idempotency } }));
      if (res.status === 201 || res.status === 200) return res.json.data.id as string;
      last = `${res.status} ${res.text}`;
      if (res.status !== 503) break;
    }
    throw new Error(`POST /v1/events failed: ${last}`);
  }

  const gateRecord = (readingId: string): GateReadingRecord => {
    const r = reading({ reading_id: readingId, captured_at: T0.toISOString() });
    return { ...r, source: 'pg-reset', received_at: new Date().toISOString(), findings: findingsOf(r) };
  };

  const eventsOnTopic = (until: (events: SecurityEvent[]) => boolean) =>
    consumeUntil(topics.securityEvents, (seen) => until(seen.map((r) => valueOf(r) as SecurityEvent)), { timeoutMs: RESUME_MS, quietMs: 500 }).then((seen) => seen.map((r) => valueOf(r) as SecurityEvent));

  it('the event relay, holding its claim while Kafka answers: publishes every stored event, and /readyz names postgres meanwhile', async () => {
    let id = '';
    await cutAfter(STATEMENT.relayClaim, async () => {
      id = await postEvent({ type: 'system_health_change', severity: 'medium', source_module: module, title: 'relay reset' });
    });
    const down = await readiness();
    expect(down.status).toBe(503);
    expect(down.body.failing).toContain('postgres');
    expect(down.body.checks.postgres?.error).toMatch(/connection|ECONNRESET|terminated/i);

    await expect.poll(() => count('SELECT count(*) AS n FROM event_outbox WHERE event_id = $1', [id]).catch(() => -1), { timeout: RESUME_MS, interval: 250 }).toBe(0);
    const events = await eventsOnTopic((seen) => seen.some((e) => e.id === id));
    expect(events.filter((e) => e.id === id).length).toBeGreaterThanOrEqual(1);
    expect(await count('SELECT count(*) AS n FROM security_events WHERE id = $1', [id])).toBe(1);
    expect(alive()).toBe(true);
    await expect.poll(async () => (await readiness()).status, { timeout: RESUME_MS, interval: 500 }).toBe(200);
  });

  it('the zone processor, between two statements of its batch: the batch is retried and its event stored once', async () => {
    const mmsi = 219_004_001;
    await cutAfter(STATEMENT.zoneCheckpoint, () =>
      producer.send([{ topic: topics.aisPositions, key: String(mmsi), value: JSON.stringify(position(mmsi, T0, ...ZONE_CENTER)) }]),
    );
    const entered = (e: SecurityEvent) => e.type === 'zone_entry' && e.metadata.mmsi === mmsi;
    const events = await eventsOnTopic((seen) => seen.some(entered));
    expect(events.filter(entered).length).toBeGreaterThanOrEqual(1);
    expect(await count(`SELECT count(*) AS n FROM security_events WHERE type = 'zone_entry' AND (body->'metadata'->>'mmsi')::int = $1`, [mmsi])).toBe(1);
    expect(await count('SELECT count(*) AS n FROM maritime_vessel_state WHERE mmsi = $1', [mmsi])).toBe(1);
    expect(alive()).toBe(true);
  });

  it('the gate processor, between two statements of its batch: the reading is decided once', async () => {
    const readingId = unique('rd');
    await cutAfter(STATEMENT.gateTransactions, () =>
      producer.send([{ topic: topics.gateReadings, key: 'gate-north', value: JSON.stringify(gateRecord(readingId)) }]),
    );
    await expect.poll(() => count('SELECT count(*) AS n FROM gate_transactions WHERE reading_id = $1', [readingId]).catch(() => -1), { timeout: RESUME_MS, interval: 250 }).toBe(1);
    expect(alive()).toBe(true);
  });

  it('the webhook dispatcher, recording an attempt: the delivery ends delivered', async () => {
    let id = '';
    await cutAfter(STATEMENT.webhookRecording, async () => {
      id = await postEvent({ type: 'perimeter_breach', category: 'perimeter', severity: 'high', source_module: module, source_device: 'fence-7', title: 'webhook reset' });
    });
    const delivered = () => count(`SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = $1 AND event_id = $2 AND status = 'delivered'`, [webhookId, id]).catch(() => -1);
    await expect.poll(delivered, { timeout: RESUME_MS, interval: 250 }).toBe(1);
    expect(receiver.received.some((r) => r.body.event.id === id)).toBe(true);
    expect(alive()).toBe(true);
  });

  it('the stream hub, taking a connection lease: the connection is refused or served, and the next one is served', async () => {
    let first: StreamClient | undefined;
    await cutAfter(STATEMENT.streamLease, async () => {
      first = await StreamClient.connect(child.url, key);
    });
    await Promise.race([first!.closed, first!.next((m) => m.type === 'authenticated', RESUME_MS)]);
    first!.close();
    await expect.poll(async () => {
      try {
        const next = await StreamClient.authenticated(child.url, key);
        next.close();
        return true;
      } catch {
        return false;
      }
    }, { timeout: RESUME_MS, interval: 500 }).toBe(true);
    expect(alive()).toBe(true);
  });

  it('the zone change listener, holding its LISTEN connection: it listens again on a new connection', async () => {
    const listening = () =>
      count(`SELECT count(*) AS n FROM pg_stat_activity WHERE query = 'LISTEN pss_zones_changed' AND client_port = ANY($1::int[])`, [proxy.upstreamPorts()]);
    await expect.poll(listening, { timeout: RESUME_MS, interval: 250 }).toBeGreaterThanOrEqual(1);
    proxy.reset(REFUSE_MS);
    await expect.poll(listening, { timeout: RESUME_MS, interval: 250 }).toBeGreaterThanOrEqual(1);
    expect(alive()).toBe(true);
  });

  it('is still the same process, and ready', async () => {
    expect(alive()).toBe(true);
    await expect.poll(async () => (await readiness()).status, { timeout: RESUME_MS, interval: 500 }).toBe(200);
    expect(child.logs().filter((l) => l.includes('Unhandled') || l.includes('uncaught'))).toEqual([]);
  });
});
