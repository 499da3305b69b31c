// The service as benchmarks run it: `pss start --roles ...` in a child process of its own, so a benchmark
// measures the service as deployed (its own heap, event loop and worker threads) and can lay roles out
// over several processes. CPU use is read from /proc, so it covers every thread of the process.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const PSS = fileURLToPath(new URL('../../bin/pss.js', import.meta.url));
/** Linux clock ticks per second, as /proc reports CPU time in (USER_HZ, 100 on every common kernel). */
const TICKS_PER_SECOND = 100;

export interface ServiceProcess {
  roles: string;
  process: ChildProcess;
  /** Base URL of its HTTP server, when it runs the api role. */
  url?: string;
  /** CPU seconds it has used so far, all threads, user and system. */
  cpuSeconds(): number;
  /** SIGTERM, then waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * Starts `pss start --roles <roles>` with `env` over the caller's environment (HTTP on a free port) and
 * waits for its "service started" log line. Its log lines at warn and above go to stderr, prefixed.
 * `nodeArgs`, e.g. `--cpu-prof`, go to its node.
 */
export async function startServiceProcess(roles: string, env: Record<string, string>, nodeArgs: string[] = []): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [...nodeArgs, PSS, 'start', '--roles', roles], {
    env: { ...process.env, PSS_HTTP_PORT: '0', PSS_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const started = new Promise<string | undefined>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`pss start --roles ${roles} did not start within 120 s`)), 120_000);
    child.once('exit', (code) => reject(new Error(`pss start --roles ${roles} exited with ${code} before it started`)));
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      let entry: { msg?: string; url?: string; level?: number };
      try {
        entry = JSON.parse(line) as typeof entry;
      } catch {
        return;
      }
      if ((entry.level ?? 0) >= 40) process.stderr.write(`[${roles}] ${line}\n`);
      if (entry.msg?.startsWith('service started')) {
        clearTimeout(timer);
        resolve(entry.url);
      }
    });
  });
  const url = await started;
  return {
    roles,
    process: child,
    ...(url === undefined ? {} : { url }),
    cpuSeconds: () => processCpuSeconds(child.pid as number),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

/** CPU seconds (user + system, all threads) process `pid` has used, from /proc/<pid>/stat. */
export function processCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) in parentheses; utime and stime are 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** The whole machine's CPU time so far, from /proc/stat: busy (not idle or waiting for I/O), stolen, and all, in seconds. */
export function machineCpuSeconds(): { busy: number; steal: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] as string;
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = line.split(/\s+/).slice(1).map(Number);
  const total = user + nice + system + idle + iowait + irq + softirq + steal;
  return { busy: (total - idle - iowait - steal) / TICKS_PER_SECOND, steal: steal / TICKS_PER_SECOND, total: total / TICKS_PER_SECOND };
}

/** CPU seconds used so far by each live process of the given command names (/proc/<pid>/stat), e.g. `java` (Kafka) and `postgres`. */
export function commandCpuSeconds(commands: readonly string[]): Map<number, { command: string; seconds: number }> {
  const wanted = new Set(commands);
  const out = new Map<number, { command: string; seconds: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    const command = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    if (!wanted.has(command)) continue;
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    out.set(Number(entry), { command, seconds: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND });
  }
  return out;
}

/**
 * CPU seconds each command used between two `commandCpuSeconds` readings, summed over its processes
 * (new ones from 0; the time of processes that exited in between is not seen, so this is a floor); with
 * `onlyPids`, over those processes alone.
 */
export function commandCpuBetween(before: ReturnType<typeof commandCpuSeconds>, after: ReturnType<typeof commandCpuSeconds>, onlyPids?: ReadonlySet<number>): Record<string, number> {
  const used: Record<string, number> = {};
  for (const [pid, { command, seconds }] of after) {
    if (onlyPids && !onlyPids.has(pid)) continue;
    const earlier = before.get(pid);
    used[command] = (used[command] ?? 0) + seconds - (earlier?.command === command ? earlier.seconds : 0);
  }
  return used;
}
