// A housekeeping job an instance runs at start and then every `everyMs` (retention of events, of webhook
// history): one run at a time, a failed run logged and tried again at the next, and a stop that waits for
// the run in progress so a shutdown never cuts a statement off. `startRetention` is the hourly deletion
// of what is older than a number of days (0: keep forever) on top of it.
import type { RunningRole } from './context.ts';
import type { Logger } from './log.ts';

export interface PeriodicJob {
  name: string;
  everyMs: number;
  log: Logger;
  /** One run; what it did is for `run` to log. */
  run(): Promise<void>;
}

export function startPeriodicJob(job: PeriodicJob): RunningRole {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const runOnce = () => {
    running = job.run().catch((err: unknown) => job.log.warn({ err, job: job.name }, `${job.name} failed; retried at the next run`));
    void running.then(() => {
      if (!stopped) timer = setTimeout(runOnce, job.everyMs);
    });
  };
  runOnce();
  return {
    name: job.name,
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

const HOUR_MS = 60 * 60 * 1000;

export interface Retention {
  name: string;
  /** Days to keep; 0 keeps everything and starts no job. */
  days: number;
  log: Logger;
  /** Deletes what is older than `days` days; returns how many rows. */
  expire(days: number): Promise<number>;
  /** What the log line says when a run deleted something. */
  deletedMessage: string;
}

export function startRetention(r: Retention): RunningRole {
  if (r.days === 0) return { name: r.name, stop: async () => undefined };
  return startPeriodicJob({
    name: r.name,
    everyMs: HOUR_MS,
    log: r.log,
    run: async () => {
      const deleted = await r.expire(r.days);
      if (deleted > 0) r.log.info({ deleted, retention_days: r.days }, r.deletedMessage);
    },
  });
}
