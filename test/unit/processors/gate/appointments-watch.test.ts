import { describe, expect, it } from 'vitest';
import { unreadPartitions } from '../../../../processors/gate/appointments-watch.ts';

const offsets = (...pairs: [number, bigint][]) => new Map(pairs);

describe('unreadPartitions', () => {
  it('names the partitions the group has not committed up to their end', () => {
    expect(unreadPartitions(offsets([0, 10n], [1, 5n], [2, 0n]), offsets([0, 10n], [1, 4n]))).toEqual([1]);
  });

  it('counts a partition never committed as unread from 0, and an empty one as read', () => {
    expect(unreadPartitions(offsets([0, 3n], [1, 0n]), new Map())).toEqual([0]);
  });

  it('treats a partition whose records were all deleted (log start at its end) as read', () => {
    expect(unreadPartitions(offsets([0, 7n], [1, 9n]), new Map(), offsets([0, 7n], [1, 2n]))).toEqual([1]);
  });

  it('is done once every partition is read to its end, or past it', () => {
    expect(unreadPartitions(offsets([0, 10n], [1, 5n]), offsets([0, 12n], [1, 5n]))).toEqual([]);
  });
});
