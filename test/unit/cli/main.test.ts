import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { WORK_BOUNDED_WAITING } from '../../support/work-bounded.ts';

const PSS = fileURLToPath(new URL('../../../bin/pss.js', import.meta.url));

function pss(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [PSS, ...args], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 30_000 });
}

// Each test starts the CLI in a node process of its own (spawnSync ends it after 30 s): fixed work, a wait.
describe('the pss command', WORK_BOUNDED_WAITING, () => {
  it('exits non-zero naming a malformed setting', () => {
    const run = pss(['config'], { PSS_HTTP_PORT: '99999' });
    expect(run.status).toBe(78);
    expect(run.stderr).toContain('PSS_HTTP_PORT: must be between 0 and 65535');
  });

  it('prints the settings table', () => {
    const run = pss(['config']);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('| `PSS_KAFKA_BROKERS` | `127.0.0.1:9092` |');
  });

  it('rejects an unknown command with usage', () => {
    const run = pss(['launch']);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('unknown command "launch"');
  });
});
