import { describe, expect, it } from 'vitest';
import * as ws from 'ws';
import { textFrame } from '../../../../delivery/stream/frame.ts';
import { SubscriberGroups, filterKey } from '../../../../delivery/stream/subscriber-groups.ts';
import type { SecurityEvent } from '../../../../schemas/event.ts';

// The library's frame parser (exported, not typed): what every ws client runs on our frames.
type Parser = { on(event: 'message', fn: (data: Buffer, isBinary: boolean) => void): void; write(chunk: Buffer): void };
const { Receiver } = ws as unknown as { Receiver: new (options: { isServer: boolean }) => Parser };

describe('textFrame', () => {
  it('frames text as the ws library reads it, at every length encoding', async () => {
    for (const length of [0, 125, 126, 65_535, 65_536, 200_000]) {
      const payload = Buffer.from('é'.repeat(Math.floor(length / 2)) + 'x'.repeat(length % 2));
      const receiver = new Receiver({ isServer: false });
      const got = new Promise<string>((resolve) => receiver.on('message', (data, isBinary) => resolve(`${isBinary}:${data.toString()}`)));
      receiver.write(textFrame(payload));
      expect(await got).toBe(`false:${payload.toString()}`);
    }
  });
});

describe('subscriber groups', () => {
  const event = { category: 'gate', severity: 'high', source_module: 'gate', location: {}, metadata: {} } as unknown as SecurityEvent;

  it('key the same filters alike, whatever the order and repeats', () => {
    expect(filterKey({ categories: ['gate', 'drone', 'gate'] })).toBe(filterKey({ categories: ['drone', 'gate'] }));
    expect(filterKey({ min_severity: 'low' })).toBe(filterKey({}));
    expect(filterKey({ categories: [] })).toBe(filterKey({}));
    expect(filterKey({ zones: ['a'] })).not.toBe(filterKey({ source_modules: ['a'] }));
  });

  it('hand an event to the members of every matching group, and forget members removed', () => {
    const groups = new SubscriberGroups<string>();
    const all = groups.add({}, 'a');
    groups.add({ categories: ['gate'] }, 'b');
    groups.add({ categories: ['gate'] }, 'c');
    const drone = groups.add({ categories: ['drone'] }, 'd');
    const got: string[] = [];
    groups.forEachMatching(event, (m) => got.push(m));
    expect(got.sort()).toEqual(['a', 'b', 'c']);
    groups.remove(all, 'a');
    groups.remove(drone, 'd');
    got.length = 0;
    groups.forEachMatching(event, (m) => got.push(m));
    expect(got.sort()).toEqual(['b', 'c']);
  });
});
