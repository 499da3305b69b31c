// LISTEN on one Postgres channel for the life of a component (the zone catalog, the system configuration
// cache, the command senders). The connection is held out of the pool (`checkOut`); when it fails it is
// dropped, never handed out again, and `ensure()` (called from the component's own poll or sweep) listens
// again on a new one. Notifications are hints: every user also polls, so a gap while no connection listens
// costs latency, not correctness.
import type { Logger } from './log.ts';
import { checkOut, type HeldClient, type Pool } from './postgres.ts';

export interface NotifyListenerOptions {
  pool: Pool;
  /** A Postgres identifier (a constant of the code, never input). */
  channel: string;
  log: Logger;
  /** What listens, for the log lines ("zone change listener lost ..."). */
  what: string;
  onNotify(): void;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

export class NotifyListener {
  readonly #o: NotifyListenerOptions;
  /** The listening connection; undefined while there is none (lost, or not opened yet). */
  #held: HeldClient | undefined;
  #opening: Promise<boolean> | undefined;
  #stopped = false;

  constructor(options: NotifyListenerOptions) {
    // LISTEN takes no parameters: the channel is checked to be a plain identifier instead.
    if (!IDENTIFIER.test(options.channel)) throw new Error(`not a channel name: ${options.channel}`);
    this.#o = options;
  }

  get listening(): boolean {
    return this.#held !== undefined;
  }

  /**
   * Listens unless it already does. Resolves true when it opened a new connection (what was notified
   * while none listened is unknown: read again), false when it already listened or could not (logged;
   * the next call tries again). Concurrent calls share one attempt.
   */
  ensure(): Promise<boolean> {
    if (this.#held !== undefined || this.#stopped) return Promise.resolve(false);
    this.#opening ??= this.#open().finally(() => (this.#opening = undefined));
    return this.#opening;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#opening;
    // Dropped rather than pooled: a pooled client would still be listening.
    this.#held?.release(new Error(`${this.#o.what} stopped`));
    this.#held = undefined;
  }

  async #open(): Promise<boolean> {
    const { pool, channel, log, what, onNotify } = this.#o;
    let held: HeldClient | undefined;
    try {
      held = await checkOut(pool, (err) => {
        log.warn({ err }, `${what} lost; polling continues and listening resumes`);
        held?.release();
        if (this.#held === held) this.#held = undefined;
      });
      held.client.on('notification', () => onNotify());
      await held.client.query(`LISTEN ${channel}`);
      if (held.lost !== undefined || this.#stopped) {
        held.release(held.lost ?? new Error(`${what} stopped`));
        return false;
      }
      this.#held = held;
      return true;
    } catch (err) {
      held?.release(err as Error);
      log.warn({ err }, `${what} cannot listen; polling only until the next try`);
      return false;
    }
  }
}
