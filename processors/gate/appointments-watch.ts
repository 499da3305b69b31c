// Appointments travel on gate.appointments to their own consumer group (gate-appointments), which stores
// them in Postgres; readings travel on gate.readings to another. A reading decided before the booking that
// was on the topic ahead of it has been stored is scored "no appointment" and flagged: a false alarm (seen
// with a backlog of 30,000 bookings at start). So the readings consumer first asks where the topic ends
// and waits, bounded, until the appointments group has committed up to there (it commits after storing).
import { withDeadline } from '../../platform/deadline.ts';
import { KafkaAdmin, type KafkaOptions } from '../../platform/kafka/index.ts';
import type { Logger } from '../../platform/log.ts';

/**
 * The partitions the group has not read to `ends` yet. A partition whose log starts at or after its end
 * (every record of it deleted) has nothing to read, though the group never committed there.
 */
export function unreadPartitions(ends: ReadonlyMap<number, bigint>, committed: ReadonlyMap<number, bigint>, starts: ReadonlyMap<number, bigint> = new Map()): number[] {
  const behind: number[] = [];
  for (const [partition, end] of ends) {
    const read = committed.get(partition) ?? 0n;
    const start = starts.get(partition) ?? 0n;
    if (read < end && start < end) behind.push(partition);
  }
  return behind.sort((a, b) => a - b);
}

const POLL_MS = 50;

export class AppointmentsWatch {
  #admin: KafkaAdmin | undefined;
  #bookingsSeen: boolean | undefined;

  constructor(
    private readonly kafka: KafkaOptions,
    private readonly groupId: string,
    private readonly topic: string,
    private readonly log: Logger,
  ) {}

  /**
   * Resolves true once the appointments group has stored everything on the topic now, or false after
   * `boundMs` (or when the broker cannot say); the caller decides anyway then, as before this wait.
   */
  async readUpToNow(boundMs: number): Promise<boolean> {
    const until = performance.now() + boundMs;
    try {
      const admin = (this.#admin ??= new KafkaAdmin(this.kafka));
      const ends = await withDeadline(admin.endOffsets(this.topic), boundMs);
      const empty = [...ends.values()].every((end) => end === 0n);
      this.#bookingsSeen = this.#bookingsSeen === true || !empty;
      if (empty) return true;
      let starts: Map<number, bigint> | undefined;
      for (;;) {
        const committed = await withDeadline(admin.committedOffsets(this.groupId, this.topic), Math.max(1, until - performance.now()));
        const behind = unreadPartitions(ends, committed, starts);
        if (behind.length === 0) return true;
        // Only when behind: partitions emptied by retention are never read, so never committed.
        starts ??= await withDeadline(admin.startOffsets(this.topic), Math.max(1, until - performance.now()));
        if (unreadPartitions(ends, committed, starts).length === 0) return true;
        if (performance.now() + POLL_MS >= until) return false;
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
    } catch (err) {
      // A fresh connection next time, in case this one is the problem.
      void this.#admin?.close().catch(() => undefined);
      this.#admin = undefined;
      this.log.warn({ err }, 'gate.appointments progress unavailable; deciding without waiting');
      return false;
    }
  }

  /**
   * Whether the site has ever received a booking: gate.appointments ended past offset 0 at a look
   * (offsets never go back, so it stays true). Undefined until the broker first answered.
   */
  get bookingsSeen(): boolean | undefined {
    return this.#bookingsSeen;
  }

  async close(): Promise<void> {
    await this.#admin?.close().catch(() => undefined);
    this.#admin = undefined;
  }
}
