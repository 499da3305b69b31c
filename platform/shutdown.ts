// Graceful shutdown within one deadline. The roles stop one after another (reverse start order, so
// consumers drain before the relay and the producer close); a role that has not stopped when the deadline
// passes is left running and named, so a shutdown that runs out of time says what it was waiting for
// instead of going quiet until the process is killed.
import { setTimeout as sleep } from 'node:timers/promises';
import type { RunningRole } from './context.ts';
import type { Logger } from './log.ts';

/** What a shutdown is still waiting for: each stop, by name, since it began. */
export class PendingStops {
  readonly #since = new Map<string, number>();

  /** Runs `stop` as `name`, pending until it settles. */
  async track<T>(name: string, stop: () => Promise<T>): Promise<T> {
    this.#since.set(name, Date.now());
    try {
      return await stop();
    } finally {
      this.#since.delete(name);
    }
  }

  get size(): number {
    return this.#since.size;
  }

  /** The pending stops with how long each has run, e.g. "maritime/zone-processor (14 s)". */
  names(now = Date.now()): string[] {
    return [...this.#since].map(([name, since]) => `${name} (${Math.round((now - since) / 1000)} s)`);
  }
}

/**
 * Stops `roles` in reverse order, each within what is left until `deadline`; past it, the roles not yet
 * stopped are asked to stop without being waited for. Resolves with the names of the stops still pending
 * at the deadline (empty when everything stopped), which it has logged.
 */
export async function stopInTurn(roles: readonly RunningRole[], log: Logger, deadline: number, pending = new PendingStops()): Promise<string[]> {
  for (const role of [...roles].reverse()) {
    const stopping = pending.track(role.name, () => role.stop(deadline, pending)).catch((err: unknown) => log.warn({ err, role: role.name }, 'role did not stop cleanly'));
    const left = deadline - Date.now();
    if (left > 0) await Promise.race([stopping, sleep(left, undefined, { ref: false })]);
  }
  const still = pending.names();
  if (still.length > 0) log.error({ pending: still }, `shutdown deadline passed; still stopping: ${still.join(', ')}`);
  return still;
}
