import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { StreamFeed } from '../../../../platform/kafka/consumer.ts';
import { readingKey, stalledPartitions, unreadPartitions } from '../../../../platform/kafka/silent-stream.ts';

/** The part of the client's message stream the feed uses: data events, pause and resume. */
class FakeStream extends EventEmitter {
  paused = false;
  pause(): this {
    this.paused = true;
    return this;
  }
  resume(): this {
    this.paused = false;
    return this;
  }
  isPaused(): boolean {
    return this.paused;
  }
}

const msg = (partition: number, offset: number) => ({ topic: 't', partition, offset: BigInt(offset), key: undefined, value: Buffer.alloc(0), headers: new Map(), timestamp: 0n });

describe('StreamFeed', () => {
  it('pauses the stream when full', () => {
    const stream = new FakeStream();
    const feed = new StreamFeed(stream as never, 3);
    for (let i = 0; i < 3; i++) stream.emit('data', msg(1, i));
    expect(feed.pending).toHaveLength(3);
    expect(stream.paused).toBe(true);
  });

  // Regression: a full feed paused the stream and only a handled batch resumed it. A rejoin that moved the
  // feed's partitions to another member emptied it, the consumer then waited for records on a paused
  // stream, and its new partitions were never read.
  it('resumes a paused stream when a rejoin drops what it held', () => {
    const stream = new FakeStream();
    const feed = new StreamFeed(stream as never, 3);
    for (let i = 0; i < 3; i++) stream.emit('data', msg(1, i));
    feed.keepOnly(new Map([['t', new Set([0])]]));
    expect(feed.pending).toHaveLength(0);
    expect(stream.paused).toBe(false);
    // Records of partitions it no longer owns are not taken; its own are.
    stream.emit('data', msg(1, 3));
    stream.emit('data', msg(0, 0));
    expect(feed.pending.map((m) => m.partition)).toEqual([0]);
  });

  it('leaves a feed that is still full paused', () => {
    const stream = new FakeStream();
    const feed = new StreamFeed(stream as never, 2);
    for (let i = 0; i < 3; i++) stream.emit('data', msg(0, i));
    feed.keepOnly(new Map([['t', new Set([0])]]));
    expect(feed.pending).toHaveLength(3);
    expect(stream.paused).toBe(true);
  });
});

describe('unreadPartitions', () => {
  const r = (partition: number, next: bigint | null, end: bigint) => ({ topic: 't', partition, next, end });

  it('names the partitions with records beyond what the member has read', () => {
    expect(unreadPartitions([r(0, 10n, 10n), r(1, 4n, 9n), r(2, null, 5n), r(3, 0n, 0n)])).toEqual([r(1, 4n, 9n)]);
  });

  it('finds nothing on a quiet topic', () => {
    expect(unreadPartitions([r(0, 10n, 10n), r(1, 0n, 0n)])).toEqual([]);
  });
});

describe('stalledPartitions', () => {
  const r = (partition: number, next: bigint | null, end: bigint) => ({ topic: 't', partition, next, end });
  const before = (...entries: [number, bigint][]) => new Map(entries.map(([p, next]) => [readingKey({ topic: 't', partition: p }), next]));

  it('names a partition whose read position has not moved while records wait beyond it, whatever the others do', () => {
    // Partition 0 moved (4 -> 9), 1 stood at 4 with 5 waiting, 2 stood at 7 with nothing to read.
    expect(stalledPartitions([r(0, 9n, 12n), r(1, 4n, 9n), r(2, 7n, 7n)], before([0, 4n], [1, 4n], [2, 7n]), new Set())).toEqual([r(1, 4n, 9n)]);
  });

  it('does not judge a partition without an earlier reading, or one whose records are fetched and waiting to be handled', () => {
    expect(stalledPartitions([r(0, 4n, 9n), r(1, 4n, 9n)], before([1, 4n]), new Set([readingKey({ topic: 't', partition: 1 })]))).toEqual([]);
  });

  it('does not judge a partition the member has no position on', () => {
    expect(stalledPartitions([r(0, null, 9n)], before([0, 0n]), new Set())).toEqual([]);
  });
});
