import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { testConfig } from '../../support/stack.ts';

const PSS = fileURLToPath(new URL('../../../bin/pss.js', import.meta.url));

// `pss rules import` refuses what PUT /v1/maritime/rules refuses, before writing anything. (A successful
// import replaces every rule in the database, which other test files of the run share; the bulk PUT it
// shares its code with is exercised end to end in test/e2e/maritime-rules.test.ts.)
describe('pss rules import', () => {
  const env = { PSS_DATABASE_URL: testConfig().databaseUrl, PSS_ENVIRONMENT: 'test', PSS_LOG_LEVEL: 'warn' };
  const dir = mkdtempSync(join(tmpdir(), 'pss-rules-'));
  const file = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  const pss = (args: string[]) => spawnSync(process.execPath, [PSS, ...args], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60_000 });

  it('names an unknown zone and exits 2', () => {
    const run = pss(['rules', 'import', file('unknown.json', JSON.stringify({ speed_rules: [{ zone: 'No such zone anywhere', max_speed_knots: 8 }] }))]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('/speed_rules/0/zone no zone is named "No such zone anywhere"');
  });

  it('reads YAML by extension: the same document, refused for the same unknown zone', () => {
    const run = pss(['rules', 'import', file('unknown.yaml', 'speed_rules:\n  - zone: No such zone anywhere\n    max_speed_knots: 8\n')]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('/speed_rules/0/zone no zone is named "No such zone anywhere"');
    const broken = pss(['rules', 'import', file('broken.yml', 'speed_rules: [\n')]);
    expect(broken.status).toBe(2);
    expect(broken.stderr).toContain('broken.yml');
    const list = pss(['rules', 'import', file('list.yaml', '- zone: x\n')]);
    expect(list.status).toBe(2);
    expect(list.stderr).toContain('must be an object');
  });

  it('lists every problem of alert rules at once: the schema\'s and parties the system configuration does not name', () => {
    const doc = {
      alert_rules: [{
        zone: 'No such zone anywhere',
        on_entry: { alert_level: 'high', actions: [{ action: 'escalate_to', parties: ['supervisor', 'mayor'] }, { action: 'dispatch_drone' }, { action: 'lock_gates', gates: [] }] },
        on_dwell: { threshold_minutes: 1.5, alert_level: 'high' },
      }],
    };
    const run = pss(['rules', 'import', file('alert.json', JSON.stringify(doc))]);
    expect(run.status).toBe(2);
    for (const problem of [
      'alert_rules.0.on_entry.actions.0.parties.1 no party "mayor" in the system configuration',
      'alert_rules.0.on_entry.actions.1.mission is required',
      'alert_rules.0.on_entry.actions.2.gates must NOT have fewer than 1 items',
      'alert_rules.0.on_dwell.threshold_minutes must be integer',
    ]) expect(run.stderr).toContain(problem);
  });

  it('refuses a document the schema refuses, and a file that is not JSON', () => {
    const invalid = pss(['rules', 'import', file('invalid.json', JSON.stringify({ speed_rules: [{ zone: 'x', max_speed_knots: -1 }] }))]);
    expect(invalid.status).toBe(2);
    expect(invalid.stderr).toContain('speed_rules.0.max_speed_knots');
    expect(pss(['rules', 'import', file('broken.json', '{"speed_rules": [')]).status).toBe(2);
    expect(pss(['rules', 'export']).status).toBe(2);
  });
});
