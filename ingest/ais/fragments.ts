// Reassembly of multi-sentence AIS messages. Fragments are grouped by a key the caller builds (source
// station, talker, channel, sequence id, count, or the tag-block group id). A group is complete when
// every fragment number is present, in any order. Groups that wait longer than the timeout, that are
// pushed out by a new fragment of the same number, or that are evicted because too many groups (or too
// many characters of fragments) are pending, or that are still incomplete when the caller flushes (end of
// input), come back as orphans for the caller to reject. Memory is bounded by `maxGroups` and `maxBytes`
// (plus the one group being added to, which is never evicted for its own sake).

export interface Fragment {
  readonly line: string;
  readonly payload: string;
  readonly fillBits: number;
  readonly station: string | undefined;
  readonly tagTimeMs: number | undefined;
  readonly trailingEpochMs: number | undefined;
  /** The latest $PGHP time when the fragment arrived. */
  readonly gatehouseMs: number | undefined;
}

export interface PendingGroup {
  readonly key: string;
  readonly fragments: ReadonlyArray<Fragment | undefined>;
  readonly received: number;
  readonly firstSeenMs: number;
}

export type OrphanCause = 'timeout' | 'replaced' | 'evicted' | 'overflow' | 'flushed';

export interface Orphan {
  readonly group: PendingGroup;
  readonly cause: OrphanCause;
}

interface MutableGroup {
  key: string;
  fragments: Array<Fragment | undefined>;
  received: number;
  firstSeenMs: number;
  /** Characters of the fragment lines held. */
  bytes: number;
}

export class FragmentStore {
  // Insertion order is creation order, so the oldest groups are always first.
  private readonly groups = new Map<string, MutableGroup>();
  private heldBytes = 0;

  constructor(
    private readonly timeoutMs: number,
    private readonly maxGroups: number,
    private readonly maxBytes = Number.POSITIVE_INFINITY,
  ) {}

  get size(): number {
    return this.groups.size;
  }

  /** Characters of fragment lines currently held. */
  get bytes(): number {
    return this.heldBytes;
  }

  /** When the oldest pending group times out (epoch ms), or undefined when nothing is pending. */
  get nextExpiryMs(): number | undefined {
    const oldest = this.groups.values().next();
    return oldest.done ? undefined : oldest.value.firstSeenMs + this.timeoutMs;
  }

  /**
   * Adds fragment `number` (1-based) of `total`. Returns the fragments in order when the group is
   * complete, otherwise undefined; orphans produced on the way are appended to `orphans`.
   */
  add(key: string, total: number, number: number, fragment: Fragment, nowMs: number, orphans: Orphan[]): Fragment[] | undefined {
    let group = this.groups.get(key);
    if (group !== undefined && (group.fragments.length !== total || group.fragments[number - 1] !== undefined)) {
      this.remove(group);
      orphans.push({ group, cause: 'replaced' });
      group = undefined;
    }
    if (group === undefined) {
      if (this.groups.size >= this.maxGroups) this.evictOldest(orphans, 'evicted');
      group = { key, fragments: new Array<Fragment | undefined>(total).fill(undefined), received: 0, firstSeenMs: nowMs, bytes: 0 };
      this.groups.set(key, group);
    }
    group.fragments[number - 1] = fragment;
    group.received++;
    if (group.received === total) {
      this.remove(group);
      return group.fragments as Fragment[];
    }
    group.bytes += fragment.line.length;
    this.heldBytes += fragment.line.length;
    if (this.heldBytes > this.maxBytes) this.shed(key, orphans);
    return undefined;
  }

  /** Removes and returns the groups older than the timeout. */
  expire(nowMs: number, orphans: Orphan[]): void {
    for (const group of this.groups.values()) {
      if (nowMs - group.firstSeenMs < this.timeoutMs) break;
      this.remove(group);
      orphans.push({ group, cause: 'timeout' });
    }
  }

  /** Removes and returns every pending group, whatever its age (end of input). */
  flush(orphans: Orphan[]): void {
    for (const group of this.groups.values()) orphans.push({ group, cause: 'flushed' });
    this.groups.clear();
    this.heldBytes = 0;
  }

  /** True when the oldest pending group has timed out (cheap check for the hot path). */
  hasExpired(nowMs: number): boolean {
    if (this.groups.size === 0) return false;
    const oldest = this.groups.values().next();
    return !oldest.done && nowMs - oldest.value.firstSeenMs >= this.timeoutMs;
  }

  private evictOldest(orphans: Orphan[], cause: OrphanCause): void {
    const oldest = this.groups.values().next();
    if (oldest.done) return;
    this.remove(oldest.value);
    orphans.push({ group: oldest.value, cause });
  }

  /** Rejects the oldest groups but `keep` until the fragments held fit in maxBytes again. */
  private shed(keep: string, orphans: Orphan[]): void {
    for (const group of this.groups.values()) {
      if (this.heldBytes <= this.maxBytes) return;
      if (group.key === keep) continue;
      this.remove(group);
      orphans.push({ group, cause: 'overflow' });
    }
  }

  private remove(group: MutableGroup): void {
    this.groups.delete(group.key);
    this.heldBytes -= group.bytes;
  }
}
