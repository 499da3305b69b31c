import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify as stringifyYaml } from 'yaml';
import { createPool, type Pool } from '../../../platform/postgres.ts';
import { listSystemConfigChanges } from '../../../response/settings/system-config-store.ts';
import { DEFAULT_SYSTEM_CONFIG } from '../../../schemas/system-config.ts';
import { scratchDatabase, type ScratchDatabase } from '../../support/scratch-database.ts';
import { testLog } from '../../support/stack.ts';

const PSS = fileURLToPath(new URL('../../../bin/pss.js', import.meta.url));

// `pss config get | set FILE`, on a database of its own (the configuration is one document for the whole site).
describe('pss config get / set', () => {
  let db: ScratchDatabase;
  let pool: Pool;
  const dir = mkdtempSync(join(tmpdir(), 'pss-sysconfig-'));
  const file = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  const pss = (args: string[]) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [PSS, ...args], { env: { ...process.env, PSS_DATABASE_URL: db.url, PSS_ENVIRONMENT: 'test', PSS_LOG_LEVEL: 'warn' } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += String(d)));
      child.stderr.on('data', (d) => (stderr += String(d)));
      child.on('close', (status) => resolve({ status, stdout, stderr }));
    });

  beforeAll(async () => {
    db = await scratchDatabase('syscfg_cli');
    pool = createPool(db.url, 2, testLog);
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  it('prints the shipped defaults, stores a YAML document with the change audited as cli, and prints it back', async () => {
    const before = await pss(['config', 'get']);
    expect(before.status).toBe(0);
    expect(JSON.parse(before.stdout)).toEqual(DEFAULT_SYSTEM_CONFIG);

    const next = { ...DEFAULT_SYSTEM_CONFIG, gates: [{ id: 'G1', name: 'Gate 1' }], incidents: { group_window_minutes: 45, reopen_window_minutes: 10 } };
    const set = await pss(['config', 'set', file('site.yaml', stringifyYaml(next))]);
    // Stored, with a warning for each shipped party: escalations reach them and nobody hears them (issue 33, item 9).
    expect(set.stderr.trim().split('\n')).toEqual(['supervisor', 'port_authority', 'coast_guard'].map((party, i) =>
      expect.stringMatching(new RegExp(`^warning: /parties/${i}/webhook_ids party "${party}" \\(.+\\) has no receiver: no webhook_ids, so its escalations are recorded and nobody is told \\(reached by escalation_order; the built-in dwell_time escalation\\)$`))));
    expect(set.status).toBe(0);
    expect(set.stdout).toContain('revision 1');
    expect(JSON.parse((await pss(['config', 'get'])).stdout)).toEqual(next);
    const { changes } = await listSystemConfigChanges(pool, { start: undefined, end: undefined, page: 1, perPage: 10 });
    expect(changes.map((c) => ({ ...c.changed_by, after: c.after }))).toEqual([{ credential_id: 'cli', principal: expect.stringMatching(/^cli:/), auth_kind: 'cli', after: next }]);
  });

  it('refuses a document with every problem and exit status 2, and changes nothing', async () => {
    const bad = { ...DEFAULT_SYSTEM_CONFIG, escalation_order: ['supervisor', 'nobody'], channels: { push: { webhook_ids: ['wh_none'] } } };
    const run = await pss(['config', 'set', file('bad.json', JSON.stringify(bad))]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('/escalation_order/1 names party "nobody"');
    expect(run.stderr).toContain('/channels/push/webhook_ids/0 webhook "wh_none" does not exist');
    const schema = await pss(['config', 'set', file('schema.json', JSON.stringify({ ...DEFAULT_SYSTEM_CONFIG, incidents: { group_window_minutes: 0, reopen_window_minutes: 0 } }))]);
    expect(schema.status).toBe(2);
    expect(schema.stderr).toContain('incidents.group_window_minutes must be >= 1');
    expect((await pss(['config', 'set'])).status).toBe(2);
    expect((await listSystemConfigChanges(pool, { start: undefined, end: undefined, page: 1, perPage: 10 })).total).toBe(1);
  });
});
