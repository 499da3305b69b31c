// The wake-up of a loop that works when told (a commit wrote something: NOTIFY, or a call in the same
// process) and sweeps on a timer for what nobody told it about (the event relay, the command senders).
// Wakes coalesce into one flag the loop takes at the start of a turn; a wake during a pause ends the pause.
export class WakeSignal {
  /** Set at creation (the first turn does everything due) and by each wake until a turn takes it. */
  #wanted = true;
  #stopping = false;
  #interrupt: (() => void) | undefined;

  /** Work now rather than at the next sweep. Cheap; wakes coalesce. */
  wake(): void {
    this.#wanted = true;
    this.#interrupt?.();
  }

  /** Ends any pause; the loop sees `stopping` and finishes. */
  stop(): void {
    this.#stopping = true;
    this.#interrupt?.();
  }

  get stopping(): boolean {
    return this.#stopping;
  }

  /** Whether a wake is waiting to be taken. */
  get wanted(): boolean {
    return this.#wanted;
  }

  /** Takes the pending wake (the turn starting now covers it); whether there was one. */
  take(): boolean {
    const wanted = this.#wanted;
    this.#wanted = false;
    return wanted;
  }

  /** Marks work as wanted again without ending a pause (a failed turn retried after its backoff). */
  want(): void {
    this.#wanted = true;
  }

  /** Waits `ms`, or less when stopping or (if `wakeable`) when woken. */
  async pause(ms: number, wakeable = true): Promise<void> {
    const until = Date.now() + ms;
    while (!this.#stopping && !(wakeable && this.#wanted) && Date.now() < until) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, until - Date.now());
        this.#interrupt = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#interrupt = undefined;
    }
  }
}
