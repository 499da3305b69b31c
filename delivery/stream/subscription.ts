import type { StreamFilters } from '../../schemas/stream.ts';
import type { EventMatcher } from './filters.ts';

/** A connection's subscription: its filters, and where it stands on the topic when that differs from the hub. */
export interface Subscription {
  filters: StreamFilters;
  matches: EventMatcher;
  /** Its group among the hub's subscriber groups (subscriber-groups.ts). */
  group: string;
  /**
   * Per partition, offsets the client has already been offered elsewhere (it resumed with a handle from an
   * instance that had read further than this one): records below are not sent again, and its handles never
   * go below these. Dropped once this instance's position passes them.
   */
  floor?: number[];
}
