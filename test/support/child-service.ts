// The service as its own process (`pss start --roles ...`), for tests that kill an instance with SIGKILL.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Config } from '../../platform/config.ts';

const PSS = fileURLToPath(new URL('../../bin/pss.js', import.meta.url));

export interface ChildService {
  process: ChildProcess;
  /** Base URL of its HTTP server (a free port); '' without the api role. */
  url: string;
  /** Every line it wrote to stdout so far (its log). */
  logs(): string[];
  /** Resolves with its exit code (null when a signal ended it). */
  exited: Promise<number | null>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts `pss start --roles <roles>` on the test stack of `config` and waits for its "service started" log line (with or without the api role). */
export async function startChildService(config: Config, roles: string, env: Record<string, string> = {}): Promise<ChildService> {
  const child = spawn(process.execPath, [PSS, 'start', '--roles', roles], {
    env: {
      ...process.env,
      PSS_DATABASE_URL: config.databaseUrl,
      PSS_KAFKA_BROKERS: config.kafkaBrokers.join(','),
      PSS_TOPIC_PREFIX: config.topicPrefix,
      PSS_ENVIRONMENT: config.environment,
      PSS_HEALTH_REPORT_INTERVAL_MS: String(config.healthReportIntervalMs),
      PSS_HTTP_PORT: '0',
      PSS_LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  // 'close': after its stdout ended too, so logs() then holds every line.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the child service did not start within 60 s')), 60_000);
    child.once('exit', (code) => reject(new Error(`the child service exited with ${code} before it started`)));
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      lines.push(line);
      try {
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if ((entry.msg === 'service started' && entry.url) || entry.msg === 'service started (no api role)') {
          clearTimeout(timer);
          resolve(entry.url ?? '');
        }
      } catch {
        // Not a log line.
      }
    });
  });
  return {
    process: child,
    url,
    logs: () => [...lines],
    exited,
    kill: async (signal = 'SIGKILL') => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      await once(child, 'exit');
    },
  };
}
