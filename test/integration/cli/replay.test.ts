// `pss replay FILE [--speed N | --fast] [--rate N/s]`: the same pipeline as a live source, from a recorded log.
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

  it('keeps the recorded timing at --speed N: 21 s of $PGHP time are produced over about 21/N seconds', async () => {
    const { prefix, vars } = env();
    const run = await pss(['replay', LOG, '--speed', '10', '--source', 'dma-replay'], vars);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('"dma-replay"');
    // Measured on the records' own append times, so the start-up time of the process (which varies with the
    // machine's load) does not enter: 2.1 s of pacing, of which the first and last position span most.
    const positions = await readTopic(`${prefix}ais.positions`, expectedPositions);
    const times = positions.map((r) => Number(r.timestamp));
    expect(Math.max(...times) - Math.min(...times)).toBeGreaterThan(1_500);
  }, 60_000);

  it('stamps a recording without per-line times at --rate N/s of event time, and says it has no times', async () => {
    // The DMA Copenhagen recording has no tag blocks and no $PGHP: four minutes of traffic, bare sentences.
    const timeless = fileURLToPath(new URL('real-nmea-dma-copenhagen-oresund.txt', AIS_FIXTURES));
    const lines = readFileSync(timeless, 'latin1').split(/\r?\n/).filter((l) => l.trim() !== '');
    const positionsOf = (ls: string[]) => ls.flatMap((l) => createAisDecoder({ source: 'x', now: Date.now }).push(l)).filter((r) => r.kind === 'position').length;
    const { prefix, vars } = env();
    const run = await pss(['replay', timeless, '--fast', '--rate', '50/s'], vars);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/has no per-line times .*stamped 50 per second of event time \(--rate\)/);

    const records = (await readTopic(`${prefix}ais.positions`, positionsOf(lines))).map((r) => valueOf(r) as { raw: string[]; reported_at: string; received_at: string });
    expect(records).toHaveLength(positionsOf(lines));
    // Line i is received (and, having no time of its own, reported) at origin + i x 20 ms.
    const once = lines.filter((l, i) => lines.indexOf(l) === i && lines.lastIndexOf(l) === i);
    const stamped = records
      .filter((r) => r.raw.length === 1 && once.includes(r.raw[0] as string))
      .map((r) => ({ line: lines.indexOf(r.raw[0] as string), at: Date.parse(r.reported_at), received: Date.parse(r.received_at) }))
      .sort((a, b) => a.line - b.line);
    expect(stamped.length).toBeGreaterThan(300);
    const origin = (stamped[0] as { line: number; at: number }).at - (stamped[0] as { line: number }).line * 20;
    expect(stamped.filter((s) => s.at !== origin + s.line * 20 || s.received !== s.at)).toEqual([]);
    // About four minutes of event time in all: nothing of it squeezed into the decode time.
    expect((stamped.at(-1) as { at: number }).at - origin).toBeGreaterThan(0.9 * lines.length * 20);
  }, 60_000);

  it('warns that a recording without times is stamped with its decode time when no --rate is given', async () => {
    const timeless = fileURLToPath(new URL('real-nmea-dma-copenhagen-oresund.txt', AIS_FIXTURES));
    const run = await pss(['replay', timeless, '--fast'], env().vars);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('has no per-line times');
    expect(run.stderr).toContain('Give --rate N/s');
  }, 60_000);

  it('explains its usage when the arguments are wrong', async () => {
    // Exits before touching Kafka, so no topics are created for this prefix.
    const run = await pss(['replay', LOG, '--speed', '0'], { PSS_TOPIC_PREFIX: 'unused.' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('usage: pss replay FILE');
    const badRate = await pss(['replay', LOG, '--fast', '--rate', 'quickly'], { PSS_TOPIC_PREFIX: 'unused.' });
    expect(badRate.code).toBe(2);
    expect(badRate.stderr).toContain('--rate N/s');
  });
});
