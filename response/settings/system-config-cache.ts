// The system configuration as every event's response reads it: held in memory, swapped within moments of
// a PUT (the NOTIFY sent in its transaction) and re-read on a slow poll as a fallback for a missed
// notification (a LISTEN connection lost meanwhile: platform/notify-listener.ts listens again at the next
// poll, which then reads once more for what it missed).
import type { Logger } from '../../platform/log.ts';
import { NotifyListener } from '../../platform/notify-listener.ts';
import type { Pool } from '../../platform/postgres.ts';
import type { SystemConfig } from '../../schemas/system-config.ts';
import { readStoredSystemConfig, SYSTEM_CONFIG_CHANGED_CHANNEL, type StoredSystemConfig } from './system-config-store.ts';

export const SYSTEM_CONFIG_POLL_MS = 30_000;

export class SystemConfigCache {
  #stored: StoredSystemConfig | undefined;
  #pool: Pool | undefined;
  #log: Logger | undefined;
  #timer: NodeJS.Timeout | undefined;
  #listener: NotifyListener | undefined;
  #refreshing: Promise<void> | undefined;
  /** A notification came while a read was under way: it may have read the document before that change. */
  #readAgain = false;
  #stopped = false;

  constructor(private readonly pollMs = SYSTEM_CONFIG_POLL_MS) {}

  /** Reads the configuration (failing if Postgres cannot be read) and keeps it current until stop(). */
  async start(pool: Pool, log: Logger): Promise<void> {
    this.#pool = pool;
    this.#log = log;
    this.#listener = new NotifyListener({ pool, log, channel: SYSTEM_CONFIG_CHANGED_CHANNEL, what: 'system configuration listener', onNotify: () => this.#refreshQuietly() });
    // Listening before the first read: a change committed between the two is read, not missed.
    await this.#listener.ensure();
    await this.refresh();
    this.#timer = setInterval(() => {
      // A lost LISTEN connection is opened again at the next poll, and what it missed is read then.
      void this.#listener?.ensure().then(() => this.#refreshQuietly());
    }, this.pollMs);
    this.#timer.unref();
  }

  /** The configuration in force as last read. */
  current(): SystemConfig {
    if (this.#stored === undefined) throw new Error('SystemConfigCache.current() before start()');
    return this.#stored.config;
  }

  /** The revision of current() (0: the shipped defaults, never changed). */
  revision(): number {
    return this.#stored?.revision ?? 0;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await this.#listener?.stop();
    await this.#refreshing?.catch(() => undefined);
  }

  /** Reads the stored configuration. A call during a read reads once more after it, so it never misses a change. */
  refresh(): Promise<void> {
    if (this.#refreshing !== undefined) {
      this.#readAgain = true;
      return this.#refreshing;
    }
    this.#refreshing = this.#readUntilSettled().finally(() => (this.#refreshing = undefined));
    return this.#refreshing;
  }

  async #readUntilSettled(): Promise<void> {
    do {
      this.#readAgain = false;
      const stored = await readStoredSystemConfig(this.#pool as Pool);
      if (stored.revision !== this.#stored?.revision) this.#log?.info({ revision: stored.revision }, 'system configuration loaded');
      this.#stored = stored;
    } while (this.#readAgain && !this.#stopped);
  }

  #refreshQuietly(): void {
    void this.refresh().catch((err) => this.#log?.warn({ err }, 'system configuration refresh failed; the last one read stays in force'));
  }
}
