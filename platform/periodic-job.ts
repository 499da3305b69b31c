// A housekeeping job an instance runs at start and then every `everyMs` (retention of events, of webhook
// history): one run at a time, a failed run logged and tried again at the next, and a stop that waits for
// the run in progress so a shutdown never cuts a statement off.
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
