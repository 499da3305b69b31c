// Issue 25: consumer lag per group and partition, read from the real broker, in /metrics, and judged by
// the Burrow-style rule (platform/kafka/lag-status.ts): a group that keeps consuming is ok; one that stops
// while records keep arriving is degraded (stalled).
import { createServer, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { ConsumerLagSampler, KafkaConsumer, KafkaProducer, type GroupLag } from '../../../platform/kafka/index.ts';
import { registry } from '../../../platform/metrics.ts';
import { pollFor } from '../../support/poll.ts';
import { startTestService } from '../../support/service.ts';
import { testKafka, testLog, unique, withAdmin } from '../../support/stack.ts';
import { steadyFeed } from '../../support/steady-feed.ts';

describe('consumer lag against the real broker', () => {
  const topic = unique('lag');
  const producer = new KafkaProducer(testKafka());
  const cleanup: (() => Promise<unknown>)[] = [];

  afterAll(async () => {
    for (const step of cleanup.reverse()) await step().catch(() => undefined);
    await producer.close();
    await withAdmin((admin) => admin.deleteTopics([topic]));
  });

  it('a group that consumes is ok; a group stopped while records keep arriving is degraded (stalled), with its lag per partition in the metrics', async () => {
    await withAdmin((admin) => admin.ensureTopics([{ name: topic, key: 'k', partitions: 2, config: {}, description: '' }]));
    const kafka = testKafka('pss-lag-test');
    const [working, stopped] = [unique('lag-working'), unique('lag-stopped')];
    const consumed = new Map([[working, 0], [stopped, 0]]);
    const consumers = [working, stopped].map((groupId) => new KafkaConsumer(kafka, { groupId, topics: [topic], maxBatch: 50, lingerMs: 0 }));
    for (const [i, consumer] of consumers.entries()) {
      const group = i === 0 ? working : stopped;
      await consumer.run(async (records) => void consumed.set(group, (consumed.get(group) ?? 0) + records.length));
      cleanup.push(() => consumer.stop());
    }
    const sampler = new ConsumerLagSampler(kafka, { intervalMs: 300, rules: { windowSamples: 5, downAfterMs: 120_000 } });
    sampler.start();
    cleanup.push(() => sampler.stop());
    const feed = steadyFeed(producer, topic);
    cleanup.push(() => feed.stop());

    const statusOf = (group: string) => sampler.statuses().find((s) => s.group === group);
    // Both groups consume and commit, and are judged ok on a full window.
    await pollFor(() => ((consumed.get(working) ?? 0) > 0 && (consumed.get(stopped) ?? 0) > 0 && sampler.samples(stopped).filter((s) => s.committed !== null).length >= 10 ? true : undefined), 30_000, () => JSON.stringify({ consumed: [...consumed], statuses: sampler.statuses() }));
    expect(statusOf(working)?.status).toBe('ok');
    expect(statusOf(stopped)?.status).toBe('ok');

    await consumers[1]!.stop();
    const stalled = await pollFor(() => (statusOf(stopped)?.status === 'degraded' ? statusOf(stopped) : undefined), 20_000, () => JSON.stringify(sampler.statuses()));
    expect(stalled.reason).toMatch(new RegExp(`${topic}/[01] stalled: committed offset \\d+ unmoved for \\d+ s while the lag grew \\d+ -> \\d+`));
    expect(stalled.lag).toBeGreaterThan(0);
    // The group still consuming, with records arriving all along, stays ok.
    expect(statusOf(working)).toMatchObject<Partial<GroupLag>>({ status: 'ok' });

    // The metrics per group, topic and partition: committed + lag = end.
    const metrics = await registry.getMetricsAsJSON();
    const values = (name: string) => metrics.find((m) => m.name === name)?.values ?? [];
    for (const partition of ['0', '1']) {
      const labels = { group: stopped, topic, partition };
      const pick = (name: string) => values(name).find((v) => Object.entries(labels).every(([k, val]) => v.labels[k] === val))?.value;
      const [committed, end, lag] = [pick('pss_consumer_group_committed_offset'), pick('pss_consumer_group_end_offset'), pick('pss_consumer_group_lag')];
      expect(committed).toBeTypeOf('number');
      expect((committed as number) + (lag as number)).toBe(end);
    }
    expect(values('pss_consumer_group_status').find((v) => v.labels.group === stopped)?.value).toBe(1);
    expect(values('pss_consumer_group_status').find((v) => v.labels.group === working)?.value).toBe(0);
  });

  it('stopping does not wait for a sampling round stuck on a broker that does not answer (regression: it waited out every request timeout)', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket)).listen(0, '127.0.0.1');
    await new Promise((r) => silent.once('listening', r));
    const port = (silent.address() as { port: number }).port;
    const sampler = new ConsumerLagSampler({ brokers: [`127.0.0.1:${port}`], clientId: 'pss-lag-silent', log: testLog }, { intervalMs: 100, groups: () => new Map([['g', ['t']]]) });
    try {
      sampler.start();
      await pollFor(() => (sockets.length > 0 ? true : undefined), 5_000, () => 'the sampler did not connect');
      const started = performance.now();
      await sampler.stop();
      expect(performance.now() - started).toBeLessThan(2_000);
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });

  it("a running service shows its consumer groups' offsets and lag in /metrics", async () => {
    const service = await startTestService({ PSS_CONSUMER_LAG_SAMPLE_MS: '200' });
    cleanup.push(() => service.stop());
    const group = unique('lag-service');
    // A consumer started with the service's Kafka options is one of its groups, as a feature's would be.
    const consumer = new KafkaConsumer(service.context.kafka, { groupId: group, topics: [topic], maxBatch: 50 });
    await consumer.run(async () => undefined);
    cleanup.push(() => consumer.stop());
    const line = new RegExp(`^pss_consumer_group_lag\\{group="${group}",topic="${topic}",partition="[01]"\\} \\d+$`, 'm');
    const deadline = Date.now() + 20_000;
    let body = '';
    while (Date.now() < deadline && !(line.test(body) && body.includes(`pss_consumer_group_status{group="${group}"} 0`))) {
      body = await (await fetch(`${service.url}/metrics`)).text();
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(body).toMatch(line);
    expect(body).toMatch(new RegExp(`^pss_consumer_group_committed_offset\\{group="${group}",topic="${topic}",partition="0"\\} \\d+$`, 'm'));
    expect(body).toMatch(new RegExp(`^pss_consumer_group_end_offset\\{group="${group}",topic="${topic}",partition="0"\\} \\d+$`, 'm'));
    expect(body).toContain(`pss_consumer_group_status{group="${group}"} 0`);
  });
});
