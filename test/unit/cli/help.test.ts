// Issue 33 item 11: every command and subcommand answers --help with its usage, exit 0, no stack trace,
// without reaching Kafka or Postgres (both point at closed ports here, so a command that tried would fail).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { COMMAND_HELP, type CommandHelp } from '../../../cli/usage.ts';

const PSS = fileURLToPath(new URL('../../../bin/pss.js', import.meta.url));
const NOWHERE = { PSS_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', PSS_KAFKA_BROKERS: '127.0.0.1:1' };
const STACK_FRAME = /^\s+at .+[:(]/m;

interface Run { args: string[]; status: number | null; stdout: string; stderr: string }

function pss(args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [PSS, ...args], { env: { ...process.env, ...NOWHERE }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += String(d)));
    child.stderr.on('data', (d: Buffer) => (stderr += String(d)));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('error', reject);
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ args, status, stdout, stderr });
    });
  });
}

/** Runs every argument list, four at a time (each is a node process). */
async function runAll(lists: string[][]): Promise<Run[]> {
  const runs: Run[] = [];
  for (let i = 0; i < lists.length; i += 4) runs.push(...(await Promise.all(lists.slice(i, i + 4).map(pss))));
  return runs;
}

const commands = Object.entries(COMMAND_HELP) as Array<[string, CommandHelp]>;
const helpCalls = commands.flatMap(([name, help]) => [[name, '--help'], [name, '-h'], ...(help.subcommands ?? []).map((sub) => [name, sub, '--help'])]);

describe('pss --help', { timeout: 120_000 }, () => {
  it('every command and subcommand prints its usage and exits 0, without a stack trace', { timeout: 240_000 }, async () => {
    expect(helpCalls.length).toBeGreaterThan(30);
    const runs = await runAll(helpCalls);
    const wrong = runs.filter((r) => {
      const name = r.args[0]!;
      return r.status !== 0 || !r.stdout.includes(`usage: pss ${name}`) || STACK_FRAME.test(r.stdout + r.stderr) || r.stderr !== '';
    });
    expect(wrong.map((r) => `pss ${r.args.join(' ')} -> ${r.status}: ${(r.stderr || r.stdout).slice(0, 300)}`)).toEqual([]);
  });

  it('names the options a command takes', async () => {
    const [keys, replay, demo] = await runAll([['keys', 'create', '--help'], ['replay', '--help'], ['demo', '--help']]);
    expect(keys!.stdout).toContain('--expires-in-days');
    expect(replay!.stdout).toContain('--rate N/s');
    expect(demo!.stdout).toContain('--minutes N');
  });

  it('lists every command at pss --help and pss help, and one command at pss help NAME', async () => {
    const [top, word, one] = await runAll([['--help'], ['help'], ['help', 'drones']]);
    for (const run of [top!, word!]) {
      expect(run.status).toBe(0);
      for (const [name] of commands) expect(run.stdout).toMatch(new RegExp(`^  ${name} `, 'm'));
    }
    expect(one!.status).toBe(0);
    expect(one!.stdout).toContain('usage: pss drones simulate');
  });

  it('answers an unknown option with the usage and exit 2, not a stack trace', async () => {
    const runs = await runAll([['replay', '--bogus'], ['drones', 'simulate', '--bogus'], ['topics', '--bogus'], ['keys', 'create', '--bogus']]);
    for (const run of runs) {
      expect(run.status, `pss ${run.args.join(' ')}`).toBe(2);
      expect(run.stderr).toContain("Unknown option '--bogus'");
      expect(run.stderr).toContain(`usage: pss ${run.args[0]}`);
      expect(run.stderr).not.toMatch(STACK_FRAME);
    }
  });
});
