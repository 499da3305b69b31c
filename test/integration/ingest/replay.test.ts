// `pss replay FILE [--speed N | --fast]`: the same pipeline as a live source, from a recorded log.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { createAisDecoder, createLineSplitter } from '../../../ingest/ais/index.ts';
import { topicSpecs } from '../../../platform/topics.ts';
import { readFileSync } from 'node:fs';
import { AIS_FIXTURES, readTopic } from '../../support/ingest.ts';
import { unique, withAdmin } from '../../support/stack.ts';
import { valueOf } from '../../support/codec.ts';

const PSS = fileURLToPath(new URL('../../../bin/pss.js', import.meta.url));
// Gatehouse $PGHP times span 09:19:09 to 09:19:30 (21 s) in this DMA log.
const LOG = fileURLToPath(new URL('real-nmea-dma-gatehouse-2013-03-18.txt', AIS_FIXTURES));

function pss(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [PSS, ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += String(d)));
    child.stderr.on('data', (d) => (stderr += String(d)));
    child.on('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - started }));
  });
}

describe('pss replay', () => {
  const prefixes: string[] = [];
  const env = () => {
    const prefix = `${unique('replay')}.`;
    prefixes.push(prefix);
    return { prefix, vars: { PSS_KAFKA_BROKERS: inject('kafkaBrokers'), PSS_TOPIC_PREFIX: prefix, PSS_LOG_LEVEL: 'warn' } };
  };
  afterAll(() => withAdmin((admin) => admin.deleteTopics(prefixes.flatMap((p) => topicSpecs(p).map((t) => t.name)))));

  const decoder = createAisDecoder({ source: 'x', now: Date.now });
  const splitter = createLineSplitter();
  const text = readFileSync(LOG, 'latin1');
  const expectedPositions = [...splitter.push(text), ...splitter.flush()].flatMap((l) => decoder.push(l)).filter((r) => r.kind === 'position').length;

  it('replays a log as fast as possible into Kafka, under the file name as source', async () => {
    const { prefix, vars } = env();
    const run = await pss(['replay', LOG, '--fast'], vars);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('every record acknowledged by Kafka');
    const positions = await readTopic(`${prefix}ais.positions`, expectedPositions);
    expect(positions).toHaveLength(expectedPositions);
    expect(new Set(positions.map((r) => (valueOf(r) as { source: string }).source))).toEqual(new Set(['replay:real-nmea-dma-gatehouse-2013-03-18.txt']));
  }, 60_000);

  it('keeps the recorded timing at --speed N: 21 s of $PGHP time take about 21/N seconds', async () => {
    const { vars } = env();
    const run = await pss(['replay', LOG, '--speed', '10', '--source', 'dma-replay'], vars);
    expect(run.code).toBe(0);
    const fast = await pss(['replay', LOG, '--fast'], env().vars);
    // 2.1 s of pacing on top of the start-up and shutdown time of a plain fast run.
    expect(run.ms - fast.ms).toBeGreaterThan(1_500);
    expect(run.stdout).toContain('"dma-replay"');
  }, 60_000);

  it('explains its usage when the arguments are wrong', async () => {
    // Exits before touching Kafka, so no topics are created for this prefix.
    const run = await pss(['replay', LOG, '--speed', '0'], { PSS_TOPIC_PREFIX: 'unused.' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('usage: pss replay FILE');
  });
});
