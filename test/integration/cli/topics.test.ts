// Issue 27: `pss topics` compares the declared topics with the cluster and names each difference;
// --apply raises partitions and sets configs, after which the topics match.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { declaredTopics } from '../../../platform/topic-check.ts';
import { topicNames, topicSpecs } from '../../../platform/topics.ts';
import { testConfig, unique, withAdmin } from '../../support/stack.ts';

const PSS = fileURLToPath(new URL('../../../bin/pss.js', import.meta.url));

/** `pss topics ...` on the test stack, asynchronously (the broker answers on this event loop's machine). */
function pss(prefix: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; out: string }> {
  const config = testConfig();
  const child = spawn(process.execPath, [PSS, 'topics', ...args], {
    env: { ...process.env, PSS_KAFKA_BROKERS: config.kafkaBrokers.join(','), PSS_TOPIC_PREFIX: prefix, PSS_LOG_LEVEL: 'error', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, out })));
}

describe('pss topics', () => {
  const prefix = `${unique('topics-cli')}.`;
  const topics = topicNames(prefix);
  afterAll(() => withAdmin((admin) => admin.deleteTopics(topicSpecs(prefix).map((t) => t.name))));

  it('reports fewer partitions and another cleanup policy by name, and --apply mends them', async () => {
    // ais.positions with half its partitions and ais.static not compacted, as an older or hand-made cluster has them.
    const specs = topicSpecs(prefix).map((s) =>
      s.name === topics.aisPositions ? { ...s, partitions: 3 } : s.name === topics.aisStatic ? { ...s, config: { ...s.config, 'cleanup.policy': 'delete' } } : s,
    );
    await withAdmin((admin) => admin.ensureTopics(specs));

    const report = await pss(prefix, []);
    expect(report.code).toBe(1);
    expect(report.out).toContain(`drift ${topics.aisPositions}: partitions 3, declared 6 (--apply sets it)`);
    expect(report.out).toContain(`drift ${topics.aisStatic}: cleanup.policy delete, declared compact (--apply sets it)`);
    expect(report.out).toContain('2 difference(s) remain; `pss topics --apply` mends those it can');

    const applied = await pss(prefix, ['--apply']);
    expect(applied.out).toContain(`applied ${topics.aisPositions}: partitions 3 -> 6`);
    expect(applied.out).toContain(`applied ${topics.aisStatic}: cleanup.policy delete -> compact`);
    expect(applied.out).toContain('topics match their declaration');
    expect(applied.code).toBe(0);

    const declared = declaredTopics(topicSpecs(prefix), { replicationFactor: 1, minInsyncReplicas: 1 });
    const described = await withAdmin((admin) => admin.describeTopics(declared));
    expect(described.find((t) => t.name === topics.aisPositions)?.partitions.length).toBe(6);
    expect(described.find((t) => t.name === topics.aisStatic)?.config['cleanup.policy']).toBe('compact');
    expect((await pss(prefix, [])).code).toBe(0);
  });

  it('takes partition counts from PSS_TOPIC_PARTITIONS', async () => {
    const report = await pss(prefix, [], { PSS_TOPIC_PARTITIONS: 'security.events=8' });
    expect(report.out).toContain(`drift ${topics.securityEvents}: partitions 6, declared 8 (--apply sets it)`);
    expect(report.code).toBe(1);
  });
});
