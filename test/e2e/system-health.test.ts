// Issue 25, "Done means": with two instances running (`pss start --roles api`, each its own process, both
// reaching Kafka through a proxy the test cuts), Kafka lost -> GET /v1/system/health names it down and
// exactly one system_health_change arrives on the stream, and one more when it is back; a SIGKILLed
// instance's report expires. Short intervals (report 400 ms, debounce 1.5 s, expiry 3 s) instead of long
// waits; a scratch database, since the reports and the service's view are database-wide.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApiKey } from '../../api/auth/api-keys.ts';
import { createPool, type Pool } from '../../platform/postgres.ts';
import { topicSpecs } from '../../platform/topics.ts';
import { startChildService, type ChildService } from '../support/child-service.ts';
import { startKafkaProxy, type KafkaProxy } from '../support/kafka-proxy.ts';
import { pollFor } from '../support/poll.ts';
import { scratchDatabase, type ScratchDatabase } from '../support/scratch-database.ts';
import { call } from '../support/service.ts';
import { testConfig, unique, withAdmin } from '../support/stack.ts';
import { StreamClient, type Message } from '../support/stream-client.ts';

const HEALTH = { PSS_HEALTH_REPORT_INTERVAL_MS: '400', PSS_HEALTH_REPORT_TTL_MS: '3000', PSS_HEALTH_DEBOUNCE_MS: '1500' };

interface Component {
  component: string;
  status: string;
  reason: string;
  instances: { instance_id: string; status: string }[];
}

describe('system health across two instances', () => {
  const prefix = `${unique('health')}.`;
  let db: ScratchDatabase;
  let pool: Pool;
  let proxy: KafkaProxy;
  const children: ChildService[] = [];
  let key: string;
  let stream: StreamClient | undefined;
  let last: unknown;

  const health = async (url: string) => {
    const res = await call(`${url}/v1/system/health`, key);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    last = res.json.data;
    return res.json.data as { status: string; components: Component[]; instances: { instance_id: string }[] };
  };
  const kafkaOf = (data: { components: Component[] }) => data.components.find((c) => c.component === 'kafka');
  const kafkaEvents = () => (stream?.events() ?? []).filter((m: Message) => m.event_type === 'system_health_change' && m.metadata?.component === 'kafka');

  beforeAll(async () => {
    db = await scratchDatabase('health');
    pool = createPool(db.url, 2);
    proxy = await startKafkaProxy(inject('kafkaBrokers').split(',')[0] as string);
    const config = testConfig({ PSS_DATABASE_URL: db.url, PSS_TOPIC_PREFIX: prefix, PSS_KAFKA_BROKERS: proxy.address, ...HEALTH });
    for (let i = 0; i < 2; i++) children.push(await startChildService(config, 'api', HEALTH));
    key = (await createApiKey(pool, config.environment, { name: 'health-reader', scopes: ['system:read', 'events:read'] }, 'test')).key;
  }, 120_000);
  afterAll(async () => {
    stream?.close();
    for (const child of children) await child.kill();
    await proxy?.close();
    await pool?.end();
    await db?.drop();
    await withAdmin((admin) => admin.deleteTopics(topicSpecs(prefix).map((t) => t.name))).catch(() => undefined);
  });

  it('refuses a credential without system:read', async () => {
    const other = (await createApiKey(pool, 'test', { name: 'no-system', scopes: ['events:read'] }, 'test')).key;
    const res = await call(`${children[0]!.url}/v1/system/health`, other);
    expect(res.status).toBe(403);
  });

  it('reports every component of both instances as ok', async () => {
    const data = await pollFor(async () => {
      const d = await health(children[0]!.url);
      return d.instances.length === 2 && kafkaOf(d)?.instances.length === 2 ? d : undefined;
    }, 20_000, () => JSON.stringify(last));
    expect(data.status).toBe('ok');
    for (const name of ['kafka', 'postgres', 'consumers', 'event_relay', 'stream_hub', 'webhook_dispatcher']) expect(data.components.find((c) => c.component === name)?.status, name).toBe('ok');
    stream = await StreamClient.authenticated(children[0]!.url, key);
    await stream.subscribe({ categories: ['system'] });
  }, 30_000);

  it('names Kafka down while it is lost, and sends one system_health_change for the loss and one for the return', async () => {
    proxy.cut();
    const down = await pollFor(async () => {
      const k = kafkaOf(await health(children[1]!.url));
      return k?.status === 'down' ? k : undefined;
    }, 20_000, () => JSON.stringify(last));
    expect(down.instances.map((i) => i.status)).toEqual(['down', 'down']);
    // Held past the debounce, so the loss is a transition (made under the lock by one of the two).
    await pollFor(async () => ((await pool.query(`SELECT 1 FROM health_transitions WHERE component = 'kafka' AND to_status = 'down'`)).rowCount === 1 ? true : undefined), 20_000, () => 'no transition to down');
    proxy.restore();
    await pollFor(async () => (kafkaOf(await health(children[0]!.url))?.status === 'ok' ? true : undefined), 30_000, () => JSON.stringify(last));

    // The loss was stored while Kafka was away; both events reach the stream once it is back.
    await pollFor(async () => (kafkaEvents().length >= 2 ? true : undefined), 60_000, () => JSON.stringify(stream?.events().slice(-5)));
    // Several more rounds of both instances: nothing more is said.
    await new Promise((r) => setTimeout(r, 3_000));
    const events = kafkaEvents();
    expect(events.map((e) => [e.metadata.status, e.metadata.previous_status, e.severity])).toEqual([['down', 'ok', 'critical'], ['ok', 'down', 'low']]);
    expect(events[0]).toMatchObject({ category: 'system', source_module: 'health', source_device: 'kafka', requires_action: true, metadata: { transition: 1 } });
    expect(events[0]!.metadata.instances).toHaveLength(2);
    const { rows } = await pool.query(`SELECT seq, from_status, to_status FROM health_transitions WHERE component = 'kafka' ORDER BY seq`);
    expect(rows).toEqual([{ seq: 1, from_status: 'ok', to_status: 'down' }, { seq: 2, from_status: 'down', to_status: 'ok' }]);
  }, 150_000);

  it('lets the report of an instance killed with SIGKILL expire', async () => {
    const before = await health(children[0]!.url);
    expect(before.instances).toHaveLength(2);
    await children[1]!.kill('SIGKILL');
    const after = await pollFor(async () => {
      const d = await health(children[0]!.url);
      return d.instances.length === 1 ? d : undefined;
    }, 15_000, () => JSON.stringify(last));
    expect(kafkaOf(after)?.instances).toHaveLength(1);
    const { rows } = await pool.query('SELECT count(DISTINCT instance_id)::int AS n FROM health_reports');
    expect(rows[0].n).toBe(1);
  }, 30_000);
});
