// Reassembly of multi-sentence AIS messages. Fragments are grouped by a key the caller builds (source
// station, talker, channel, sequence id, count, or the tag-block group id). A group is complete when
// every fragment number is present, in any order. Groups that wait longer than the timeout, that are
// pushed out by a new fragment of the same number, or that are evicted because too many groups are
// pending, or that are still incomplete when the caller flushes (end of input), come back as orphans
// for the caller to reject. Memory is bounded by `maxGroups`.

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

export type OrphanCause = 'timeout' | 'replaced' | 'evicted' | 'flushed';

export interface Orphan {
  readonly group: PendingGroup;
  readonly cause: OrphanCause;
}

interface MutableGroup {
  key: string;
  fragments: Array<Fragment | undefined>;
  received: number;
  firstSeenMs: number;
}

export class FragmentStore {
  // Insertion order is creation order, so the oldest groups are always first.
  private readonly groups = new Map<string, MutableGroup>();

  constructor(
    private readonly timeoutMs: number,
    private readonly maxGroups: number,
  ) {}

  get size(): number {
    return this.groups.size;
  }

  /**
   * Adds fragment `number` (1-based) of `total`. Returns the fragments in order when the group is
   * complete, otherwise undefined; orphans produced on the way are appended to `orphans`.
   */
  add(key: string, total: number, number: number, fragment: Fragment, nowMs: number, orphans: Orphan[]): Fragment[] | undefined {
    let group = this.groups.get(key);
    if (group !== undefined && (group.fragments.length !== total || group.fragments[number - 1] !== undefined)) {
      this.groups.delete(key);
      orphans.push({ group, cause: 'replaced' });
      group = undefined;
    }
    if (group === undefined) {
      if (this.groups.size >= this.maxGroups) this.evictOldest(orphans);
      group = { key, fragments: new Array<Fragment | undefined>(total).fill(undefined), received: 0, firstSeenMs: nowMs };
      this.groups.set(key, group);
    }
    group.fragments[number - 1] = fragment;
    group.received++;
    if (group.received < total) return undefined;
    this.groups.delete(key);
    return group.fragments as Fragment[];
  }

  /** Removes and returns the groups older than the timeout. */
  expire(nowMs: number, orphans: Orphan[]): void {
    for (const group of this.groups.values()) {
      if (nowMs - group.firstSeenMs < this.timeoutMs) break;
      this.groups.delete(group.key);
      orphans.push({ group, cause: 'timeout' });
    }
  }

  /** Removes and returns every pending group, whatever its age (end of input). */
  flush(orphans: Orphan[]): void {
    for (const group of this.groups.values()) orphans.push({ group, cause: 'flushed' });
    this.groups.clear();
  }

  /** True when the oldest pending group has timed out (cheap check for the hot path). */
  hasExpired(nowMs: number): boolean {
    if (this.groups.size === 0) return false;
    const oldest = this.groups.values().next();
    return !oldest.done && nowMs - oldest.value.firstSeenMs >= this.timeoutMs;
  }

  private evictOldest(orphans: Orphan[]): void {
    const oldest = this.groups.values().next();
    if (oldest.done) return;
    this.groups.delete(oldest.value.key);
    orphans.push({ group: oldest.value, cause: 'evicted' });
  }
}
