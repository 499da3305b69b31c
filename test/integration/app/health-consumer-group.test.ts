// Issue 25, "Done means": a stalled consumer group becomes degraded by the lag rule, in the health model.
// The lag sampler (platform/kafka/lag-sampler.ts) reads the real broker; the health reporter turns its
// Burrow-style status into the component consumer_group:<group> and, past the debounce, into one
// system_health_change (medium). A group that keeps consuming while records arrive stays ok. A scratch
// database: the reports and transitions are database-wide.
import { afterAll, describe, expect, it } from 'vitest';
import { startHealthReporter } from '../../../app/health.ts';
import { consumerGroupSource } from '../../../platform/health/consumer-groups.ts';
import { ConsumerLagSampler, KafkaConsumer, KafkaProducer } from '../../../platform/kafka/index.ts';
import { createPool, type Pool } from '../../../platform/postgres.ts';
import { pollFor } from '../../support/poll.ts';
import { scratchDatabase, type ScratchDatabase } from '../../support/scratch-database.ts';
import { testConfig, testKafka, testLog, unique, withAdmin } from '../../support/stack.ts';
import { steadyFeed } from '../../support/steady-feed.ts';

describe('a consumer group in the health model', () => {
  const topic = unique('health-lag');
  const group = unique('health-lag-group');
  const component = `consumer_group:${group}`;
  const producer = new KafkaProducer(testKafka());
  const cleanup: (() => Promise<unknown>)[] = [];
  let db: ScratchDatabase | undefined;
  let pool: Pool | undefined;

  afterAll(async () => {
    for (const step of cleanup.reverse()) await step().catch(() => undefined);
    await producer.close();
    await pool?.end();
    await db?.drop();
    await withAdmin((admin) => admin.deleteTopics([topic]));
  });

  it('is ok while the group consumes, and degraded (one system_health_change) once its offset stalls while the lag grows', async () => {
    db = await scratchDatabase('healthlag');
    const pg = (pool = createPool(db.url, 2));
    await withAdmin((admin) => admin.ensureTopics([{ name: topic, key: 'k', partitions: 2, config: {}, description: '' }]));
    const kafka = testKafka('pss-health-lag');
    const consumer = new KafkaConsumer(kafka, { groupId: group, topics: [topic], maxBatch: 50, lingerMs: 0 });
    let consumed = 0;
    await consumer.run(async (records) => void (consumed += records.length));
    cleanup.push(() => consumer.stop());
    const sampler = new ConsumerLagSampler(kafka, { intervalMs: 300, rules: { windowSamples: 5, downAfterMs: 120_000 }, groups: () => new Map([[group, [topic]]]) });
    sampler.start();
    cleanup.push(() => sampler.stop());
    const feed = steadyFeed(producer, topic);
    cleanup.push(() => feed.stop());
    const config = testConfig({ PSS_DATABASE_URL: db.url, PSS_HEALTH_REPORT_INTERVAL_MS: '300', PSS_HEALTH_DEBOUNCE_MS: '600' });
    const reporter = startHealthReporter({ config, pool: pg, log: testLog, relay: { wake: () => undefined } }, ['test'], { consumer_groups: consumerGroupSource(kafka) });
    cleanup.push(() => reporter.stop());

    const stateOf = async () => (await pg.query<{ status: string; pending_status: string | null }>('SELECT status, pending_status FROM health_components WHERE component = $1', [component])).rows[0];
    // Judged on a full window while consuming: ok, nothing pending.
    await pollFor(async () => (consumed > 0 && sampler.samples(group).filter((s) => s.committed !== null).length >= 10 && (await stateOf()) !== undefined ? true : undefined), 30_000, () => JSON.stringify(sampler.statuses()));
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await stateOf()).toEqual({ status: 'ok', pending_status: null });

    await consumer.stop();
    await pollFor(async () => ((await stateOf())?.status === 'degraded' ? true : undefined), 30_000, () => JSON.stringify(sampler.statuses()));
    const { rows } = await pg.query<{ body: { severity: string; title: string; metadata: Record<string, unknown> } }>(
      `SELECT body FROM security_events WHERE type = 'system_health_change' AND body->'metadata'->>'component' = $1`,
      [component],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.body).toMatchObject({ severity: 'medium', title: `Consumer group ${group} is degraded`, metadata: { status: 'degraded', previous_status: 'ok' } });
    expect(rows[0]!.body.metadata.reason).toMatch(/stalled: committed offset \d+ unmoved/);
  }, 90_000);
});
