// Subscriptions grouped by identical filters: the hub tests each distinct filter set once per event and
// hands the event to every member of the groups that match (dashboards tend to ask for the same things).
import type { StreamFilters } from '../../schemas/stream.ts';
import { compileFilters, type EventMatcher } from './filters.ts';
import type { SecurityEvent } from '../../schemas/event.ts';

interface Group<M> {
  matches: EventMatcher;
  members: Set<M>;
}

/** The same filters, whatever the order of their fields and list items or repeated values, give the same key. */
export function filterKey(filters: StreamFilters): string {
  const sorted = (values: readonly string[] | undefined) => (values && values.length > 0 ? [...new Set(values)].sort() : undefined);
  return JSON.stringify([sorted(filters.categories), filters.min_severity ?? 'low', sorted(filters.zones), sorted(filters.source_modules)]);
}

export class SubscriberGroups<M> {
  readonly #groups = new Map<string, Group<M>>();

  /** Adds `member` under `filters`; returns the group's key, which `remove` takes. */
  add(filters: StreamFilters, member: M): string {
    const key = filterKey(filters);
    let group = this.#groups.get(key);
    if (!group) this.#groups.set(key, (group = { matches: compileFilters(filters), members: new Set() }));
    group.members.add(member);
    return key;
  }

  remove(key: string, member: M): void {
    const group = this.#groups.get(key);
    if (!group) return;
    group.members.delete(member);
    if (group.members.size === 0) this.#groups.delete(key);
  }

  /** Calls `take` for every member whose filters match the event. */
  forEachMatching(event: SecurityEvent, take: (member: M) => void): void {
    for (const group of this.#groups.values()) {
      if (!group.matches(event)) continue;
      for (const member of group.members) take(member);
    }
  }
}
