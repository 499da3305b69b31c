// `pss demo` as a new user runs it (issue 34 item 7, issue 33 item 8), on a scratch database and topics of
// its own: the table is only table rows (no JSON log lines, no stack traces), nothing is stamped in the
// future (so GET /v1/events with its default window shows what was printed), and the demo's admin key does
// not outlive the demo: Ctrl-C revokes it, and a demo killed outright has its key revoked by the next run.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { topicSpecs } from '../../platform/topics.ts';
import { pollFor } from '../support/poll.ts';
import { scratchDatabase, type ScratchDatabase } from '../support/scratch-database.ts';
import { call } from '../support/service.ts';
import { testConfig, unique, withAdmin } from '../support/stack.ts';

const PSS = fileURLToPath(new URL('../../bin/pss.js', import.meta.url));
const HEADER = /^time \(UTC\) +severity +type +zone \/ gate \/ component +what$/;
const ROW = /^\d\d:\d\d:\d\d {4}/;

interface Demo {
  child: ChildProcess;
  stdout: string[];
  stderr: string[];
  url: string;
  key: string;
  keyId?: string;
  exited: Promise<number | null>;
}

describe('pss demo', () => {
  const prefix = `${unique('demo')}.`;
  const home = mkdtempSync(join(tmpdir(), 'pss-demo-'));
  let db: ScratchDatabase;
  let client: pg.Client;
  const started: ChildProcess[] = [];

  async function startDemo(): Promise<Demo> {
    const config = testConfig();
    const child = spawn(process.execPath, [PSS, 'demo'], {
      env: { ...process.env, PSS_DATABASE_URL: db.url, PSS_KAFKA_BROKERS: config.kafkaBrokers.join(','), PSS_TOPIC_PREFIX: prefix, PSS_ENVIRONMENT: 'test', PSS_HTTP_PORT: '0', PSS_HOME: home, PSS_LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.push(child);
    const stdout: string[] = [];
    const stderr: string[] = [];
    createInterface({ input: child.stdout! }).on('line', (l) => stdout.push(l));
    createInterface({ input: child.stderr! }).on('line', (l) => stderr.push(l));
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    await pollFor(() => (stdout.some((l) => HEADER.test(l)) ? true : undefined), 90_000, () => `the table header; stdout: ${stdout.join('\n')}\nstderr: ${stderr.join('\n')}`);
    const url = /Port Security Service demo: (\S+)/.exec(stdout.join('\n'))?.[1] ?? '';
    const key = /demo API key \(admin[^)]*\): (\S+)/.exec(stdout.join('\n'))?.[1] ?? '';
    return { child, stdout, stderr, url, key, exited };
  }

  const keyWorks = async (demoUrl: string, key: string) => (await call(`${demoUrl}/v1/events?per_page=1`, key)).status;

  beforeAll(async () => {
    db = await scratchDatabase('demo');
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
  });
  afterAll(async () => {
    // A failed assertion must not leave a demo running.
    for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await client?.end();
    await db?.drop();
    await withAdmin((a) => a.deleteTopics(topicSpecs(prefix).map((t) => t.name))).catch(() => undefined);
    rmSync(home, { recursive: true, force: true });
  });

  it('prints a table of events on the wall clock, and a key that the next demo revokes when this one was killed', { timeout: 300_000 }, async () => {
    const first = await startDemo();
    expect(first.key).toMatch(/^svc_test_/);
    // Bounded by rows: the gate lane's first trucks and the vessels already inside zones.
    await pollFor(() => (first.stdout.filter((l) => ROW.test(l)).length >= 4 ? true : undefined), 90_000, () => `four rows; stdout: ${first.stdout.join('\n')}`);
    const printedAt = new Date();
    const table = first.stdout.slice(first.stdout.findIndex((l) => HEADER.test(l)) + 1);
    expect(table.filter((l) => l.trim() !== '' && !ROW.test(l))).toEqual([]);
    expect(first.stdout.filter((l) => l.startsWith('{') || /^\s+at /.test(l))).toEqual([]);
    expect(first.stderr.filter((l) => l.startsWith('{') || /^\s+at /.test(l))).toEqual([]);
    expect(readFileSync(join(home, 'demo.log'), 'utf8')).toContain('"msg":"service started"');

    const { rows: [future] } = await client.query<{ events: string; vessels: string }>(
      `SELECT (SELECT count(*) FROM security_events WHERE occurred_at > $1) AS events,
              (SELECT count(*) FROM maritime_vessel_state WHERE last_seen_at > $1) AS vessels`, [printedAt]);
    expect(future).toEqual({ events: '0', vessels: '0' });
    const listed = await call(`${first.url}/v1/events?per_page=200`, first.key);
    expect(listed.status).toBe(200);
    const { rows: [stored] } = await client.query<{ n: string }>('SELECT count(*) AS n FROM security_events WHERE occurred_at <= $1', [printedAt]);
    expect(listed.json.data.length).toBeGreaterThanOrEqual(Math.min(200, Number(stored!.n)));

    // Killed outright: nothing revokes its key now.
    first.child.kill('SIGKILL');
    await first.exited;
    const second = await startDemo();
    expect(second.stdout.join('\n')).toMatch(/revoked the key an earlier demo left valid: key_/);
    expect(await keyWorks(second.url, first.key)).toBe(401);
    expect(await keyWorks(second.url, second.key)).toBe(200);

    second.child.kill('SIGINT');
    expect(await second.exited).toBe(0);
    expect(second.stdout.join('\n')).toMatch(/demo API key key_\w+ revoked/);
    const { rows: valid } = await client.query("SELECT id FROM api_keys WHERE created_by = 'pss demo' AND revoked_at IS NULL AND expires_at > now()");
    expect(valid).toEqual([]);
  });
});
