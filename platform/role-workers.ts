// Runs a role as several members of its consumer group, each in a worker thread of this instance: one
// Node thread does all of a member's Kafka client work, decoding and evaluation, so members in workers
// use more than one core. Each worker is what a separate instance would be (its own clients, pool and
// caches; platform/role-worker.ts), so the group's guarantees carry over unchanged. The main thread wakes
// its relay when a worker stored events, writes the workers' log lines where its own go, and shows the
// workers' metrics and stuck consumers.
// A worker that exits unexpectedly is started again (after 1 s, doubling up to 30 s while it keeps
// failing); meanwhile the group gives its partitions to the other members, and /readyz names it.
import { Worker } from 'node:worker_threads';
import type { RunningRole, ServiceContext } from './context.ts';
import { addRemoteConsumers, addRemoteGroups } from './kafka/index.ts';
import { destinationOf } from './log.ts';
import { setWorkerMetrics } from './metrics.ts';
import type { FromWorker, RoleWorkerData, ToWorker } from './role-worker-protocol.ts';

export interface RoleWorkersOptions {
  /** The role's name, in logs and in the workers' names (`<name>-<index>`). */
  name: string;
  /** URL of the module (import.meta.url-relative) exporting `start`. */
  module: URL;
  /** The export that starts the role on a ServiceContext and returns its RunningRole. */
  start: string;
  count: number;
  /** How often workers report metrics and stuck consumers (default 1 s; a benchmark counting progress wants it finer). */
  reportEveryMs?: number;
}

const ENTRY = new URL('./role-worker.mjs', import.meta.url);
const RESTART_MIN_MS = 1_000;
const RESTART_MAX_MS = 30_000;

export async function startRoleWorkers(ctx: ServiceContext, opts: RoleWorkersOptions): Promise<RunningRole> {
  const members = Array.from({ length: opts.count }, (_, i) => new RoleWorker(ctx, { config: ctx.config, worker: `${opts.name}-${i}`, logLevel: ctx.log.level, module: opts.module.href, start: opts.start, reportEveryMs: opts.reportEveryMs ?? 1_000 }));
  try {
    await Promise.all(members.map((m) => m.start()));
  } catch (err) {
    await Promise.all(members.map((m) => m.stop(Date.now() + ctx.config.shutdownTimeoutMs)));
    throw err;
  }
  return { name: opts.name, stop: async (deadline) => void (await Promise.all(members.map((m) => m.stop(deadline ?? Date.now() + ctx.config.shutdownTimeoutMs)))) };
}

class RoleWorker {
  #thread: Worker | undefined;
  #stopping = false;
  #restarts = 0;
  #restartTimer: NodeJS.Timeout | undefined;
  /** Why the worker is not running as it should, for /readyz; undefined while it is. */
  #down: string | undefined;
  #stuck: string[] = [];
  /** The worker's consumer groups, for the lag sampler; kept when it exits, as its group's lag still matters. */
  #groups = new Map<string, string[]>();
  readonly #unregister: () => void;
  readonly #unregisterGroups: () => void;
  readonly #log;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly data: RoleWorkerData,
  ) {
    this.#log = ctx.log.child({ worker: data.worker });
    this.#unregister = addRemoteConsumers(ctx.kafka, () => (this.#down === undefined ? this.#stuck : [`${this.data.worker}: ${this.#down}`, ...this.#stuck]));
    this.#unregisterGroups = addRemoteGroups(ctx.kafka, () => this.#groups);
  }

  /** Resolves once the role runs in the worker; rejects with the reason it could not start. */
  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const thread = new Worker(ENTRY, { workerData: this.data });
      this.#thread = thread;
      let started = false;
      thread.on('message', (message: FromWorker) => {
        switch (message.type) {
          case 'started':
            started = true;
            this.#down = undefined;
            this.#restarts = 0;
            resolve();
            break;
          case 'failed':
            reject(new Error(`${this.data.worker} could not start: ${message.message}`));
            break;
          case 'wake':
            this.ctx.relay.wake();
            break;
          case 'log':
            destinationOf(this.ctx.log).write(message.line);
            break;
          case 'report':
            setWorkerMetrics(this.data.worker, message.metrics);
            this.#stuck = message.stuck;
            this.#groups = new Map(message.groups);
            break;
        }
      });
      thread.on('error', (err) => {
        this.#log.error({ err }, 'role worker failed');
        if (!started) reject(err);
      });
      thread.on('exit', (code) => {
        if (this.#thread === thread) this.#thread = undefined;
        if (!started) reject(new Error(`${this.data.worker} exited with code ${code} before it started`));
        if (this.#stopping || !started) return;
        this.#down = `exited with code ${code}; restarting`;
        this.#log.error({ code }, 'role worker exited unexpectedly; starting it again');
        this.#restartLater();
      });
    });
  }

  #restartLater(): void {
    const delay = Math.min(RESTART_MAX_MS, RESTART_MIN_MS * 2 ** this.#restarts++);
    this.#restartTimer = setTimeout(() => {
      if (this.#stopping) return;
      this.start().catch((err: unknown) => {
        this.#down = `could not be restarted: ${(err as Error).message}`;
        this.#log.error({ err }, 'role worker could not be restarted; trying again');
        this.#restartLater();
      });
    }, delay);
  }

  /** Stops the role in the worker (it drains its batch and writes what it holds), or terminates it at the deadline. */
  async stop(deadline: number): Promise<void> {
    this.#stopping = true;
    clearTimeout(this.#restartTimer);
    const thread = this.#thread;
    if (thread !== undefined) {
      const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
      thread.postMessage({ type: 'stop', deadline } satisfies ToWorker);
      const late = setTimeout(() => {
        this.#log.warn('role worker did not stop by the deadline; terminating it');
        void thread.terminate();
      }, Math.max(0, deadline - Date.now()));
      await exited;
      clearTimeout(late);
    }
    this.#unregister();
    this.#unregisterGroups();
  }
}
