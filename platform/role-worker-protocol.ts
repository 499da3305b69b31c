// What the main thread and a role's worker threads (platform/role-workers.ts, role-worker.ts) say to
// each other. Everything here is structured-cloneable.
import type { MetricObjectWithValues, MetricValue } from 'prom-client';
import type { Config } from './config.ts';

export interface RoleWorkerData {
  config: Config;
  /** Names the worker in logs, metrics and readiness: `<role>-<index>`. */
  worker: string;
  /** The main thread's logger level: a worker logs what the instance's logger would. */
  logLevel: string;
  /** URL of the module whose export `start` starts the role on a ServiceContext. */
  module: string;
  start: string;
  /** How often the worker reports its metrics and stuck consumers. */
  reportEveryMs: number;
}

/** Stop the role, report once more, close the clients and let the thread exit (the main thread awaits the exit). */
export type ToWorker = { type: 'stop'; deadline: number };

export type FromWorker =
  | { type: 'started' }
  | { type: 'failed'; message: string }
  /** A transaction that stored events committed: the main thread wakes its relay. */
  | { type: 'wake' }
  /** A log line of the worker, written by the main thread to its own logger's destination. */
  | { type: 'log'; line: string }
  /** Every `reportEveryMs`, and once more at the stop: the worker's metrics, its stuck consumers and its consumer groups with their topics. */
  | { type: 'report'; metrics: MetricObjectWithValues<MetricValue<string>>[]; stuck: string[]; groups: [string, string[]][] };
